package odradek.codecdiff;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Readable;

/**
 * The Java half of the differential codec test, speaking JSON lines on stdin/stdout.
 *
 * <pre>
 * gen COUNT SEED   in:  {"name": "ProduceRequest", "version": 9}
 *                  out: COUNT x {"name", "version", "case", "hex", "json"}
 *                       or {"name", "version", "skip": why} or {..., "case", "error": why}
 * check            in:  {"id": any, "name", "version", "hex"}
 *                  out: {"id", "ok": re-serialised bytes equal the input, "hex": re-serialised,
 *                        "json": the parsed message as converter JSON} or {"id", "ok": false, "error"}
 * </pre>
 *
 * "json" is the parsed message as kafka-clients' getters see it (Spec.render), which the Python side
 * compares field by field with its decoded value. Every generated instance is first
 * checked against kafka-clients itself (parse back and re-serialise identically).
 */
public final class CodecDiff {
    private static final JsonMapper MAPPER = new JsonMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final HexFormat HEX = HexFormat.of();
    private static final Map<String, Codec> CODECS = new HashMap<>();

    private CodecDiff() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        if (args.length == 3 && args[0].equals("gen")) {
            generate(in, out, Integer.parseInt(args[1]), Long.parseLong(args[2]));
        } else if (args.length == 1 && args[0].equals("check")) {
            check(in, out);
        } else {
            System.err.println("usage: codec-diff gen COUNT SEED | codec-diff check");
            System.exit(2);
        }
        out.flush();
    }

    private static void generate(BufferedReader in, BufferedWriter out, int count, long seed) throws Exception {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode target = MAPPER.readTree(line);
            String name = target.get("name").asText();
            short version = (short) target.get("version").asInt();
            Codec codec = codec(name);
            String skip = codec.skipReason(version);
            if (skip != null) {
                emit(out, base(name, version).put("skip", skip));
                continue;
            }
            Random rnd = new Random(seed * 1_000_003L + name.hashCode() * 31L + version);
            for (int i = 0; i < count; i++) {
                ObjectNode result = base(name, version).put("case", i);
                try {
                    Message message = codec.fromJson(codec.spec.random(version, rnd), version);
                    byte[] bytes = serialize(message, version);
                    Message parsed = codec.parse(bytes, version);
                    byte[] again = serialize(parsed, version);
                    if (!Arrays.equals(bytes, again)) {
                        throw new IllegalStateException("kafka-clients does not round-trip its own bytes");
                    }
                    result.put("hex", HEX.formatHex(bytes)).set("json", codec.toJson(parsed, version));
                } catch (Exception e) {
                    result.put("error", describe(e));
                }
                emit(out, result);
            }
        }
    }

    private static void check(BufferedReader in, BufferedWriter out) throws Exception {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode request = MAPPER.readTree(line);
            String name = request.get("name").asText();
            short version = (short) request.get("version").asInt();
            ObjectNode result = NODES.objectNode();
            result.set("id", request.get("id"));
            try {
                Codec codec = codec(name);
                String skip = codec.skipReason(version);
                if (skip != null) {
                    emit(out, result.put("ok", false).put("skip", skip));
                    continue;
                }
                byte[] input = HEX.parseHex(request.get("hex").asText());
                ByteBuffer buffer = ByteBuffer.wrap(input);
                Message parsed = codec.construct(new ByteBufferAccessor(buffer), version);
                if (buffer.hasRemaining()) {
                    throw new IllegalStateException(buffer.remaining() + " trailing bytes after the message");
                }
                byte[] again = serialize(parsed, version);
                result.put("ok", Arrays.equals(input, again)).put("hex", HEX.formatHex(again));
                result.set("json", codec.toJson(parsed, version));
            } catch (Exception e) {
                result.put("ok", false).put("error", describe(e));
            }
            emit(out, result);
        }
    }

    private static ObjectNode base(String name, short version) {
        return NODES.objectNode().put("name", name).put("version", version);
    }

    private static void emit(BufferedWriter out, JsonNode node) throws Exception {
        out.write(MAPPER.writeValueAsString(node));
        out.newLine();
    }

    private static byte[] serialize(Message message, short version) {
        ByteBuffer buffer = MessageUtil.toByteBufferAccessor(message, version).buffer();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static String describe(Throwable e) {
        Throwable cause = e;
        while (cause instanceof InvocationTargetException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    private static Codec codec(String name) throws Exception {
        Codec codec = CODECS.get(name);
        if (codec == null) {
            codec = new Codec(name);
            CODECS.put(name, codec);
        }
        return codec;
    }

    /** kafka-clients' generated class, its JSON converter and its spec, found by message name. */
    private static final class Codec {
        final Spec spec;
        private final String missing;
        private Constructor<?> reader;
        private Method fromJson;

        Codec(String name) throws Exception {
            spec = Spec.load(name);
            String prefix = "org.apache.kafka.common.message." + name + "Data";
            String why = null;
            try {
                Class<?> data = Class.forName(prefix);
                Class<?> converter = Class.forName(prefix + "JsonConverter");
                reader = data.getConstructor(Readable.class, short.class);
                fromJson = converter.getMethod("read", JsonNode.class, short.class);
            } catch (ClassNotFoundException | NoSuchMethodException e) {
                why = "kafka-clients has no " + prefix + ": " + e.getMessage();
            }
            missing = spec == null ? "kafka-clients has no message spec " + name : why;
        }

        String skipReason(short version) {
            if (missing != null) {
                return missing;
            }
            if (!spec.valid.contains(version)) {
                return "kafka-clients defines " + spec.name + " versions " + spec.valid + " only";
            }
            return null;
        }

        Message fromJson(JsonNode node, short version) throws Exception {
            return (Message) fromJson.invoke(null, node, version);
        }

        JsonNode toJson(Message message, short version) throws Exception {
            return spec.render(message, version);
        }

        Message construct(Readable readable, short version) throws Exception {
            return (Message) reader.newInstance(readable, version);
        }

        Message parse(byte[] bytes, short version) throws Exception {
            return construct(new ByteBufferAccessor(ByteBuffer.wrap(bytes)), version);
        }
    }
}
