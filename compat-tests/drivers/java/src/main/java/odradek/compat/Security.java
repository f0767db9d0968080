package odradek.compat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The secured connection of a driver process: COMPAT_SECURITY (PROTOCOL.md) in kafka-clients'
 * settings, added to every client's properties. PEM trust and key stores; SASL through each
 * mechanism's JAAS login module, OAUTHBEARER with kafka-clients' own unsecured login (the same
 * principal as the harness's token).
 */
final class Security {
    private static final JsonNode SETTINGS = load();

    private Security() {}

    private static JsonNode load() {
        String text = System.getenv("COMPAT_SECURITY");
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return new ObjectMapper().readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(String field) {
        JsonNode node = SETTINGS.get(field);
        return node == null || node.isNull() ? null : node.asText();
    }

    private static String read(String path) {
        try {
            return Files.readString(Path.of(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Adds the secured connection's settings to {@code props}; nothing without COMPAT_SECURITY. */
    static void apply(Properties props) {
        if (SETTINGS == null) {
            return;
        }
        props.put("security.protocol", text("protocol"));
        if (text("ca") != null) {
            props.put("ssl.truststore.type", "PEM");
            props.put("ssl.truststore.location", text("ca"));
        }
        if (text("cert") != null) {
            props.put("ssl.keystore.type", "PEM");
            props.put("ssl.keystore.certificate.chain", read(text("cert")));
            props.put("ssl.keystore.key", read(text("key")));
        }
        String mechanism = text("mechanism");
        if (mechanism == null) {
            return;
        }
        props.put("sasl.mechanism", mechanism);
        String user = text("username");
        String module;
        switch (mechanism) {
            case "PLAIN":
                module = "org.apache.kafka.common.security.plain.PlainLoginModule";
                break;
            case "OAUTHBEARER":
                props.put(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
                                + " unsecuredLoginStringClaim_sub=\"" + user + "\";");
                return;
            default:
                module = "org.apache.kafka.common.security.scram.ScramLoginModule";
        }
        props.put(
                "sasl.jaas.config",
                module + " required username=\"" + user + "\" password=\"" + text("password") + "\";");
    }
}
