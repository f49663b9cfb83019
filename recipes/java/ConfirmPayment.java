// Signs the payment confirmation of a booking (compact JWS, ES256, the key's kid) and books the quote with it.
// Java 17, JDK only. Run:
//   BASE_URL=... API_KEY=sk_... PAYMENT_KEY=key.json java ConfirmPayment.java QUOTE_ID AMOUNT PAYMENT_REFERENCE booking.json
// PAYMENT_KEY: the private JWK (the file `admin payment-key:generate --json` prints, or a bare JWK with kid),
// or a PKCS#8 PEM file ("BEGIN PRIVATE KEY") with PAYMENT_KID naming the registered key.
// booking.json: the POST /bookings body without payment_confirmation (quote_id, partner_reference, contact, travelers).
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HexFormat;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class ConfirmPayment {
  private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();

  /** The compact JWS the service expects in payment_confirmation: {"alg":"ES256","kid":...} over the claims. */
  static String confirmPayment(PrivateKey key, String kid, String quoteId, String amount, String paymentReference, Instant paidAt)
      throws Exception {
    String header = "{\"alg\":\"ES256\",\"kid\":" + json(kid) + "}";
    String claims = "{\"quote_id\":" + json(quoteId) + ",\"amount\":{\"amount\":" + json(amount) + ",\"currency\":\"MAD\"}"
        + ",\"payment_reference\":" + json(paymentReference) + ",\"paid_at\":" + json(paidAt.toString()) + "}";
    String signingInput = B64URL.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
        + B64URL.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
    // JWS wants R||S (64 bytes), not the DER that plain "SHA256withECDSA" returns.
    Signature ecdsa = Signature.getInstance("SHA256withECDSAinP1363Format");
    ecdsa.initSign(key);
    ecdsa.update(signingInput.getBytes(StandardCharsets.US_ASCII));
    return signingInput + "." + B64URL.encodeToString(ecdsa.sign());
  }

  /** A P-256 private key from a JWK's "d", or from a PKCS#8 PEM. */
  static PrivateKey loadKey(String text) throws Exception {
    KeyFactory ec = KeyFactory.getInstance("EC");
    if (text.contains("-----BEGIN PRIVATE KEY-----")) {
      String b64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
      return ec.generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64)));
    }
    AlgorithmParameters p256 = AlgorithmParameters.getInstance("EC");
    p256.init(new ECGenParameterSpec("secp256r1"));
    BigInteger d = new BigInteger(1, Base64.getUrlDecoder().decode(field(text, "d")));
    return ec.generatePrivate(new ECPrivateKeySpec(d, p256.getParameterSpec(ECParameterSpec.class)));
  }

  /** A string field of a flat JSON object (the JDK has no JSON parser; use yours). */
  static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
    if (!m.find()) throw new IllegalArgumentException("no \"" + name + "\" in the payment key");
    return m.group(1);
  }

  static String json(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** Live writes are signed: the same function as SignRequest.sign (version 2 with a key, version 1 with null). */
  static String sign(String method, String pathWithQuery, byte[] body, String secret, long timestamp, String idempotencyKey) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    String signed = timestamp + "\n" + method + "\n" + pathWithQuery + "\n";
    if (idempotencyKey != null) signed = "v2\n" + signed + idempotencyKey + "\n";
    mac.update(signed.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(mac.doFinal(body));
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: BASE_URL=... API_KEY=... PAYMENT_KEY=file java ConfirmPayment.java QUOTE_ID AMOUNT PAYMENT_REFERENCE booking.json");
      System.exit(2);
    }
    String keyText = Files.readString(Path.of(System.getenv("PAYMENT_KEY")));
    String kid = System.getenv("PAYMENT_KID") != null ? System.getenv("PAYMENT_KID") : field(keyText, "kid");
    // paid_at: when the bank collected the payment; the service takes it up to 24 h old.
    String jws = confirmPayment(loadKey(keyText), kid, args[0], args[1], args[2], Instant.now().truncatedTo(ChronoUnit.SECONDS));

    String booking = Files.readString(Path.of(args[3])).strip();
    byte[] body = (booking.substring(0, booking.length() - 1) + ",\"payment_confirmation\":\"" + jws + "\"}").getBytes(StandardCharsets.UTF_8);
    String apiKey = System.getenv("API_KEY");
    URI uri = URI.create(System.getenv("BASE_URL") + "/bookings");
    String idempotencyKey = UUID.randomUUID().toString();
    HttpRequest.Builder request = HttpRequest.newBuilder(uri)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .header("Authorization", "Bearer " + apiKey)
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", idempotencyKey);
    if (apiKey.startsWith("sk_live_")) {
      long timestamp = System.currentTimeMillis() / 1000;
      boolean version1 = "1".equals(System.getenv("SIGNATURE_VERSION"));
      if (!version1) request.header("X-Signature-Version", "2");
      request.header("X-Timestamp", Long.toString(timestamp)).header("X-Signature",
          sign("POST", uri.getRawPath(), body, apiKey.substring(apiKey.lastIndexOf('_') + 1), timestamp, version1 ? null : idempotencyKey));
    }
    HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
        .send(request.build(), HttpResponse.BodyHandlers.ofString());
    System.out.println(response.statusCode());
    System.out.println(response.body());
    System.exit(response.statusCode() / 100 == 2 ? 0 : 1);
  }
}
