package odradek.codecdiff;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.Uuid;

/**
 * One Kafka message specification (common/message/NAME.json from the kafka-clients jar) and a
 * random-instance generator over it.
 *
 * <p>The generator writes the JSON form that kafka-clients' generated {@code XDataJsonConverter.read}
 * accepts: every non-tagged field of the version is present; a tagged field is present about half
 * the time; a nullable field is null about a quarter of the time; arrays hold 0-3 elements.
 */
final class Spec {
    private static final JsonMapper MAPPER =
        JsonMapper.builder().enable(JsonReadFeature.ALLOW_JAVA_COMMENTS).enable(JsonReadFeature.ALLOW_TRAILING_COMMA).build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String ALPHABET = "abcXYZ09-_.é中";
    private static final String[] SPECIALS = {"😀", "\u0000", "ß"};

    final String name;
    final Range valid;
    final Range flexible;
    private final JsonNode fields;
    private final Map<String, JsonNode> structs = new HashMap<>();

    private Spec(String name, JsonNode root) {
        this.name = name;
        this.valid = Range.parse(root.get("validVersions").asText());
        JsonNode flex = root.get("flexibleVersions");
        this.flexible = Range.parse(flex == null ? "none" : flex.asText());
        this.fields = root.get("fields");
        JsonNode common = root.get("commonStructs");
        if (common != null) {
            for (JsonNode struct : common) {
                structs.put(struct.get("name").asText(), struct.get("fields"));
            }
        }
        collectInline(fields);
    }

    /** Loads common/message/{name}.json from the class path; null if kafka-clients has no such message. */
    static Spec load(String name) throws IOException {
        try (InputStream in = Spec.class.getClassLoader().getResourceAsStream("common/message/" + name + ".json")) {
            if (in == null) {
                return null;
            }
            return new Spec(name, MAPPER.readTree(in));
        }
    }

    private void collectInline(JsonNode list) {
        for (JsonNode field : list) {
            JsonNode nested = field.get("fields");
            if (nested != null) {
                structs.put(elementType(field.get("type").asText()), nested);
                collectInline(nested);
            }
        }
    }

    private static String elementType(String type) {
        return type.startsWith("[]") ? type.substring(2) : type;
    }

    /** A random instance of the message at {@code version}, as converter JSON. */
    ObjectNode random(short version, Random rnd) {
        return randomStruct(fields, version, rnd);
    }

    private ObjectNode randomStruct(JsonNode list, short version, Random rnd) {
        ObjectNode out = NODES.objectNode();
        for (JsonNode field : list) {
            if (!Range.parse(field.get("versions").asText()).contains(version)) {
                continue;
            }
            JsonNode tag = field.get("tag");
            JsonNode taggedVersions = field.get("taggedVersions");
            boolean tagged = tag != null && taggedVersions != null && Range.parse(taggedVersions.asText()).contains(version);
            if (tagged && rnd.nextBoolean()) {
                continue;
            }
            JsonNode nullableVersions = field.get("nullableVersions");
            boolean nullable = nullableVersions != null && Range.parse(nullableVersions.asText()).contains(version);
            String key = jsonName(field.get("name").asText());
            if (nullable && rnd.nextInt(4) == 0) {
                out.set(key, NullNode.getInstance());
            } else {
                out.set(key, randomValue(field.get("type").asText(), version, rnd));
            }
        }
        return out;
    }

    /**
     * kafka-clients' parsed {@code message} rendered as JSON through its getters, every field of the
     * version included (tagged fields at their default too, which the JSON converter leaves out).
     * bytes and records become base64 text, uuids Kafka's text form.
     */
    ObjectNode render(Object message, short version) throws ReflectiveOperationException {
        return renderStruct(fields, message, version);
    }

    private ObjectNode renderStruct(JsonNode list, Object value, short version) throws ReflectiveOperationException {
        ObjectNode out = NODES.objectNode();
        for (JsonNode field : list) {
            if (!Range.parse(field.get("versions").asText()).contains(version)) {
                continue;
            }
            String key = jsonName(field.get("name").asText());
            Object fieldValue = value.getClass().getMethod(key).invoke(value);
            out.set(key, renderValue(field.get("type").asText(), fieldValue, version));
        }
        return out;
    }

    private JsonNode renderValue(String type, Object value, short version) throws ReflectiveOperationException {
        if (value == null) {
            return NullNode.getInstance();
        }
        if (type.startsWith("[]")) {
            ArrayNode array = NODES.arrayNode();
            for (Object element : (Iterable<?>) value) {
                array.add(renderValue(type.substring(2), element, version));
            }
            return array;
        }
        switch (type) {
            case "bool":
                return NODES.booleanNode((Boolean) value);
            case "int8":
            case "int16":
            case "uint16":
            case "int32":
            case "int64":
                return NODES.numberNode(((Number) value).longValue());
            case "float64":
                return NODES.numberNode((Double) value);
            case "string":
                return NODES.textNode((String) value);
            case "uuid":
                return NODES.textNode(value.toString());
            case "bytes":
                return NODES.textNode(Base64.getEncoder().encodeToString((byte[]) value));
            case "records":
                ByteBuffer buffer = ((ByteBuffer) value.getClass().getMethod("buffer").invoke(value)).duplicate();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                return NODES.textNode(Base64.getEncoder().encodeToString(bytes));
            default:
                JsonNode struct = structs.get(type);
                if (struct == null) {
                    throw new IllegalStateException(name + ": unknown type " + type);
                }
                return renderStruct(struct, value, version);
        }
    }

    /** The converter's JSON key: the spec's field name with a lower-case first letter. */
    static String jsonName(String specName) {
        return Character.toLowerCase(specName.charAt(0)) + specName.substring(1);
    }

    private JsonNode randomValue(String type, short version, Random rnd) {
        if (type.startsWith("[]")) {
            ArrayNode array = NODES.arrayNode();
            int count = rnd.nextInt(4);
            for (int i = 0; i < count; i++) {
                array.add(randomValue(type.substring(2), version, rnd));
            }
            return array;
        }
        switch (type) {
            case "bool":
                return NODES.booleanNode(rnd.nextBoolean());
            case "int8":
                return NODES.numberNode((byte) randomLong(rnd, Byte.MIN_VALUE, Byte.MAX_VALUE));
            case "int16":
                return NODES.numberNode((short) randomLong(rnd, Short.MIN_VALUE, Short.MAX_VALUE));
            case "uint16":
                return NODES.numberNode((int) randomLong(rnd, 0, 65535));
            case "int32":
                return NODES.numberNode((int) randomLong(rnd, Integer.MIN_VALUE, Integer.MAX_VALUE));
            case "int64":
                return NODES.numberNode(randomLong(rnd, Long.MIN_VALUE, Long.MAX_VALUE));
            case "float64":
                return NODES.numberNode(rnd.nextInt(3) == 0 ? (double) rnd.nextInt(100) : rnd.nextDouble() * 1e6 - 5e5);
            case "string":
                return NODES.textNode(randomString(rnd));
            case "bytes":
            case "records":
                byte[] bytes = new byte[rnd.nextInt(13)];
                rnd.nextBytes(bytes);
                return new BinaryNode(bytes);
            case "uuid":
                Uuid id = rnd.nextInt(5) == 0 ? Uuid.ZERO_UUID : new Uuid(rnd.nextLong(), rnd.nextLong());
                return NODES.textNode(id.toString());
            default:
                JsonNode struct = structs.get(type);
                if (struct == null) {
                    throw new IllegalStateException(name + ": unknown type " + type);
                }
                return randomStruct(struct, version, rnd);
        }
    }

    /** Small values, boundaries and uniform values, a third each. */
    private static long randomLong(Random rnd, long min, long max) {
        switch (rnd.nextInt(3)) {
            case 0:
                return Math.max(min, Math.min(max, rnd.nextInt(13) - 2));
            case 1:
                long[] edges = {min, max, -1, 0, 1};
                return Math.max(min, Math.min(max, edges[rnd.nextInt(edges.length)]));
            default:
                long value = rnd.nextLong();
                if (min == Long.MIN_VALUE && max == Long.MAX_VALUE) {
                    return value;
                }
                return min + Math.floorMod(value, max - min + 1);
        }
    }

    private static String randomString(Random rnd) {
        StringBuilder out = new StringBuilder();
        int length = rnd.nextInt(10);
        for (int i = 0; i < length; i++) {
            if (rnd.nextInt(12) == 0) {
                out.append(SPECIALS[rnd.nextInt(SPECIALS.length)]);
            } else {
                out.append(ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
            }
        }
        return out.toString();
    }

    /** An inclusive version range in Kafka's notation: "3+", "0-12", "5", "none". */
    record Range(int low, int high) {
        static Range parse(String text) {
            text = text.trim();
            if (text.equals("none")) {
                return new Range(1, 0);
            }
            if (text.endsWith("+")) {
                return new Range(Integer.parseInt(text.substring(0, text.length() - 1)), Short.MAX_VALUE);
            }
            int dash = text.indexOf('-');
            if (dash > 0) {
                return new Range(Integer.parseInt(text.substring(0, dash)), Integer.parseInt(text.substring(dash + 1)));
            }
            int only = Integer.parseInt(text);
            return new Range(only, only);
        }

        boolean contains(int version) {
            return low <= version && version <= high;
        }

        @Override
        public String toString() {
            return high == Short.MAX_VALUE ? low + "+" : low + "-" + high;
        }
    }
}
