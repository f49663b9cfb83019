import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local bound to the loopback interface. Its own launcher listens on
 * every interface and has no option to choose one; it has no authentication,
 * so on a shared network anyone could read and write the local tables. This
 * builds the server exactly as DynamoDBLocal.jar's ServerRunner does, from the
 * same command-line options, then binds its Jetty connectors to 127.0.0.1
 * before it starts (see infra/local/services.ts).
 */
public class DynamoDBLocalLoopback {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) ((ServerConnector) connector).setHost("127.0.0.1");
    proxy.start();
  }
}
