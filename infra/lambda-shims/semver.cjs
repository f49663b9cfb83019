'use strict';
/*
 * Stands in for `semver` in the Lambda bundles (see LAMBDA_BUNDLE_ALIASES).
 * The X-Ray SDK and its cls-hooked dependency call only `semver.gte`, but
 * `require('semver')` loads all of semver (28 KB minified). This is the same
 * package's own `gte`, required alone.
 */
module.exports = { gte: require('../../node_modules/semver/functions/gte.js') };
