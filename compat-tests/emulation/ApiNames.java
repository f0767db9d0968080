import org.apache.kafka.common.protocol.ApiKeys;

public class ApiNames {
    public static void main(String[] args) {
        for (ApiKeys key : ApiKeys.values()) {
            System.out.println(key.id + "\t" + key.name);
        }
    }
}
