package io.github.delaytask.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.Year;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.github.delaytask.PayloadCodec;
import io.github.delaytask.testsupport.BootLine;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tasks added by an application on one Boot line run in an application on the other: the codec the starter makes of
 * the line's own Jackson auto-configuration writes the bytes of one golden file, which the tests of both lines share,
 * and reads it back.
 */
class PayloadJsonAcrossBootLinesTests {

    private static final String GOLDEN = "payload-across-boot-lines.json";

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BootLine.JACKSON))
        .withUserConfiguration(DelayTaskJsonConfiguration.class);

    @Test
    void aPayloadIsWrittenAsTheGoldenJsonThatBothLinesShare() {
        this.contextRunner.run((context) -> {
            byte[] written = context.getBean(PayloadCodec.class).write(payload());
            assertThat(new String(written, StandardCharsets.UTF_8)).isEqualTo(new String(golden(), StandardCharsets.UTF_8));
            assertThat(written).isEqualTo(golden());
        });
    }

    @Test
    void theGoldenJsonIsReadBackIntoAnEqualPayload() {
        this.contextRunner.run((context) -> assertThat(read(context.getBean(PayloadCodec.class), golden(),
                OrderTimeout.class)).isEqualTo(payload()));
    }

    @Test
    void aMissingOrNullPrimitiveIsReadAsZeroAsOnBootThree() {
        this.contextRunner.run((context) -> {
            PayloadCodec codec = context.getBean(PayloadCodec.class);
            assertThat(read(codec, "{\"orderId\":\"o-1\"}", OrderTimeout.class).amountInCents()).isZero();
            assertThat(read(codec, "{\"orderId\":\"o-1\",\"amountInCents\":null}", OrderTimeout.class)
                .amountInCents()).isZero();
        });
    }

    @Test
    void valuesTheLinesStillWriteDifferentlyAreReadInTheFormOfEitherLine() {
        // Boot 3 writes "2025" and "fr_CA", Boot 4 2025 and "fr-CA"
        this.contextRunner.run((context) -> {
            PayloadCodec codec = context.getBean(PayloadCodec.class);
            assertThat(read(codec, "\"2025\"", Year.class)).isEqualTo(Year.of(2025));
            assertThat(read(codec, "2025", Year.class)).isEqualTo(Year.of(2025));
            assertThat(read(codec, "\"fr_CA\"", Locale.class)).isEqualTo(Locale.CANADA_FRENCH);
            assertThat(read(codec, "\"fr-CA\"", Locale.class)).isEqualTo(Locale.CANADA_FRENCH);
        });
    }

    private static <T> T read(PayloadCodec codec, String json, Class<T> type) {
        return read(codec, json.getBytes(StandardCharsets.UTF_8), type);
    }

    private static <T> T read(PayloadCodec codec, byte[] json, Class<T> type) {
        return type.cast(codec.reader(type).read(json));
    }

    private static OrderTimeout payload() {
        // not in alphabetical order, so that a mapper sorting map entries would show
        Map<String, Integer> quantities = new LinkedHashMap<>();
        quantities.put("sku-9", 2);
        quantities.put("sku-1", 1);
        return new OrderTimeout("order-4711 (Zürich)", 9_007_199_254_740_993L,
                Instant.parse("2025-03-09T01:59:30.123456789Z"), LocalDate.of(2025, 12, 31), new BigDecimal("12.50"),
                Channel.MOBILE_APP, new Customer("Åsa Öberg", "c-42"), List.of("first", "gift"), quantities,
                Date.from(Instant.parse("2025-03-09T01:59:30.500Z")));
    }

    private static byte[] golden() throws IOException {
        try (InputStream in = PayloadJsonAcrossBootLinesTests.class.getResourceAsStream(GOLDEN)) {
            assertThat(in).as(GOLDEN + " on the class path").isNotNull();
            return in.readAllBytes();
        }
    }

    record OrderTimeout(String orderId, long amountInCents, Instant dueAt, LocalDate billingDay, BigDecimal rate,
            Channel channel, Customer customer, List<String> tags, Map<String, Integer> quantities, Date placedAt) {
    }

    enum Channel {

        WEB, MOBILE_APP

    }

    /** A class rather than a record, its properties not in alphabetical order, as Jackson 3 would sort them. */
    static class Customer {

        private String name;

        private String id;

        Customer() {
        }

        Customer(String name, String id) {
            this.name = name;
            this.id = id;
        }

        public String getName() {
            return this.name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public String getId() {
            return this.id;
        }

        public void setId(String id) {
            this.id = id;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Customer customer && Objects.equals(this.name, customer.name)
                    && Objects.equals(this.id, customer.id);
        }

        @Override
        public int hashCode() {
            return Objects.hash(this.name, this.id);
        }

    }

}
