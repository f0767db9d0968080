// A Java test against odradek's test double: it injects a fault through the HTTP control
// endpoint, then the real Java producer must see NOT_LEADER_OR_FOLLOWER, refresh its metadata
// and retry until the record is written. Usage: ControlEndpointTest BOOTSTRAP CONTROL_URL TOPIC
// Prints "OK offset=N" and exits 0, or prints the failure and exits 1.

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

public final class ControlEndpointTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private static String post(String url, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        HttpResponse<String> answer = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() / 100 != 2) {
            throw new IllegalStateException(url + " answered " + answer.statusCode() + ": " + answer.body());
        }
        return answer.body();
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String control = args[1];
        String topic = args[2];
        post(control + "/topics", "{\"name\": \"" + topic + "\", \"partitions\": 1}");
        String fault = post(control + "/faults",
                "{\"api\": \"Produce\", \"error\": \"NOT_LEADER_OR_FOLLOWER\", \"count\": 2, \"topic\": \"" + topic + "\"}");
        if (!fault.contains("\"id\"")) {
            throw new IllegalStateException("no fault id in " + fault);
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "java-control-test");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            RecordMetadata written = producer.send(new ProducerRecord<>(topic, "order", "priced")).get(60, TimeUnit.SECONDS);
            System.out.println("OK offset=" + written.offset());
        } catch (Exception failure) {
            System.out.println("FAILED " + failure);
            System.exit(1);
        }
    }
}
