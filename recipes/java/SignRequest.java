// Signs and sends a live write (sk_live_ keys): X-Timestamp and X-Signature, as version 2 (X-Signature-Version: 2,
// the Idempotency-Key signed too), or as the spec's version 1 with SIGNATURE_VERSION=1.
// Java 17, JDK only. Run: BASE_URL=... API_KEY=sk_live_... java SignRequest.java METHOD PATH [BODY]
// SIGN_ONLY=1 prints the headers instead of sending; TIMESTAMP=<Unix seconds> and IDEMPOTENCY_KEY=<key> sign with those:
// together they reproduce a known signature (the worked examples of docs/guides/authentication.md) to compare with your own code.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class SignRequest {
  /**
   * X-Signature: hex HMAC-SHA256, keyed with the key's secret (the part after the last '_'), over
   * "v2" LF timestamp LF METHOD LF path-with-query LF idempotencyKey LF body (version 2), or, when idempotencyKey
   * is null, timestamp LF METHOD LF path-with-query LF body (version 1, the spec's). pathWithQuery starts with /v1;
   * body is the exact bytes sent.
   */
  static String sign(String method, String pathWithQuery, byte[] body, String secret, long timestamp, String idempotencyKey) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    String signed = timestamp + "\n" + method.toUpperCase() + "\n" + pathWithQuery + "\n";
    if (idempotencyKey != null) signed = "v2\n" + signed + idempotencyKey + "\n";
    mac.update(signed.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(mac.doFinal(body));
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: BASE_URL=... API_KEY=sk_live_... java SignRequest.java METHOD PATH [BODY]");
      System.exit(2);
    }
    String apiKey = System.getenv("API_KEY");
    String method = args[0].toUpperCase();
    URI uri = URI.create(System.getenv("BASE_URL") + args[1]);
    // The bytes signed are the bytes sent: encode once, send that array.
    byte[] body = (args.length > 2 ? args[2] : "").getBytes(StandardCharsets.UTF_8);
    String pathWithQuery = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    String fixed = System.getenv("TIMESTAMP");
    long timestamp = fixed != null ? Long.parseLong(fixed) : System.currentTimeMillis() / 1000;
    // A new key per logical operation; a retry of the same operation keeps the key, the timestamp and the bytes.
    String idempotencyKey = System.getenv("IDEMPOTENCY_KEY") != null ? System.getenv("IDEMPOTENCY_KEY") : UUID.randomUUID().toString();
    boolean version1 = "1".equals(System.getenv("SIGNATURE_VERSION"));
    String signature = sign(method, pathWithQuery, body, apiKey.substring(apiKey.lastIndexOf('_') + 1), timestamp, version1 ? null : idempotencyKey);
    if (System.getenv("SIGN_ONLY") != null) {
      System.out.println((version1 ? "" : "X-Signature-Version: 2\nIdempotency-Key: " + idempotencyKey + "\n")
          + "X-Timestamp: " + timestamp + "\nX-Signature: " + signature);
      return;
    }
    HttpRequest.Builder request = HttpRequest.newBuilder(uri)
        .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
        .header("Authorization", "Bearer " + apiKey)
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", idempotencyKey)
        .header("X-Timestamp", Long.toString(timestamp))
        .header("X-Signature", signature);
    if (!version1) request.header("X-Signature-Version", "2");
    HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
        .send(request.build(), HttpResponse.BodyHandlers.ofString());
    System.out.println(response.statusCode());
    System.out.println(response.body());
    System.exit(response.statusCode() / 100 == 2 ? 0 : 1);
  }
}
