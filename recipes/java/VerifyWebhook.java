// Verifies a webhook delivery: X-Service-Signature (the spec's) and the Standard Webhooks headers
// (webhook-id, webhook-timestamp within 5 minutes, webhook-signature). Java 17, JDK only. Run:
//   WEBHOOK_SECRET=whsec_... java VerifyWebhook.java body.json headers.txt
// body.json: the raw request body exactly as received; headers.txt: one "Name: value" line per header.
// Exit 0 and the event id when the delivery verifies, 1 and the reason otherwise.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class VerifyWebhook {
  static final long TOLERANCE_SECONDS = 300;

  /**
   * Throws SecurityException unless the delivery is authentic and fresh. Verify the raw bytes before any JSON parsing.
   * headers: names in lower case. nowSeconds: your clock, Unix seconds.
   */
  static void verify(byte[] rawBody, Map<String, String> headers, String secret, long nowSeconds) throws Exception {
    // The spec's signature: hex HMAC-SHA256 of the body, keyed with the whole whsec_... string.
    // During a secret rotation X-Service-Signature stays keyed with the previous secret; X-Service-Signature-Next carries the new one's.
    byte[] expected = hmac(secret.getBytes(StandardCharsets.UTF_8), rawBody);
    if (!hexMatches(headers.get("x-service-signature"), expected) && !hexMatches(headers.get("x-service-signature-next"), expected))
      throw new SecurityException("X-Service-Signature does not match the body");

    // Standard Webhooks: v1,base64(HMAC-SHA256(id.timestamp.body)), keyed with the base64 part of the secret.
    String id = headers.get("webhook-id"), timestamp = headers.get("webhook-timestamp"), signatures = headers.get("webhook-signature");
    if (id == null || timestamp == null || signatures == null) throw new SecurityException("the webhook-* headers are missing");
    if (!timestamp.matches("\\d{1,12}") || Math.abs(nowSeconds - Long.parseLong(timestamp)) > TOLERANCE_SECONDS)
      throw new SecurityException("webhook-timestamp is outside the tolerance: a late or replayed delivery");
    byte[] key = Base64.getDecoder().decode(secret.startsWith("whsec_") ? secret.substring(6) : secret);
    byte[] prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
    byte[] signed = new byte[prefix.length + rawBody.length];
    System.arraycopy(prefix, 0, signed, 0, prefix.length);
    System.arraycopy(rawBody, 0, signed, prefix.length, rawBody.length);
    byte[] want = hmac(key, signed);
    boolean ok = false;
    for (String s : signatures.split(" ")) { // several during a rotation, space-separated
      if (s.startsWith("v1,")) {
        try {
          ok |= MessageDigest.isEqual(Base64.getDecoder().decode(s.substring(3)), want);
        } catch (IllegalArgumentException notBase64) {
          // not ours: keep looking
        }
      }
    }
    if (!ok) throw new SecurityException("webhook-signature does not match");
    // The id and the timestamp are signed: deduplicate on webhook-id (= X-Service-Event-Id), delivery is at-least-once.
  }

  static byte[] hmac(byte[] key, byte[] data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(data);
  }

  /** Constant time: MessageDigest.isEqual, never String.equals. */
  static boolean hexMatches(String header, byte[] expected) {
    if (header == null || !header.matches("[0-9a-f]{64}")) return false;
    return MessageDigest.isEqual(HexFormat.of().parseHex(header), expected);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: WEBHOOK_SECRET=whsec_... java VerifyWebhook.java body.json headers.txt");
      System.exit(2);
    }
    byte[] body = Files.readAllBytes(Path.of(args[0]));
    Map<String, String> headers = new HashMap<>();
    for (String line : Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8)) {
      int colon = line.indexOf(':');
      if (colon > 0) headers.put(line.substring(0, colon).trim().toLowerCase(), line.substring(colon + 1).trim());
    }
    try {
      verify(body, headers, System.getenv("WEBHOOK_SECRET"), System.currentTimeMillis() / 1000);
    } catch (SecurityException e) {
      System.err.println("refused: " + e.getMessage());
      System.exit(1);
    }
    System.out.println("verified " + headers.get("webhook-id"));
  }
}
