package io.github.delaytask.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.delaytask.sample.order.OrderReport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's scenarios, end to end over HTTP. Subclasses choose where the app runs. Written against what Spring
 * Boot 3.5 and 4 share (Spring's {@code RestClient}), so that the Boot 3 test application runs them as they are.
 */
public abstract class AbstractSampleApplicationTests {

    @Value("${local.server.port}")
    private int port;

    @Autowired
    private OrderReport orderReport;

    private RestClient rest;

    @BeforeEach
    void restClient() {
        // statuses are asserted, not thrown
        this.rest = RestClient.builder()
            .baseUrl("http://127.0.0.1:" + this.port)
            .defaultStatusHandler((status) -> true, (request, response) -> {
            })
            .build();
    }

    @Test
    void orderNotPaidInTimeIsCancelled() {
        OrderBody order = createOrder(1);
        assertThat(order.status()).isEqualTo("UNPAID");
        assertThat(order.taskId()).isNotNull();

        await().atMost(Duration.ofSeconds(15)).until(() -> getOrder(order.id()).status(), "CANCELLED"::equals);
    }

    @Test
    void orderPaidInTimeStaysPaid() {
        OrderBody order = createOrder(1);

        ResponseEntity<PaymentBody> payment = pay(order.id(), PaymentBody.class);
        assertThat(payment.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(payment.getBody()).isEqualTo(new PaymentBody(order.id(), "PAID", true));

        // Well past the moment the timeout was due, the order must still be paid.
        await().during(Duration.ofSeconds(2))
            .atMost(Duration.ofSeconds(4))
            .until(() -> getOrder(order.id()).status(), "PAID"::equals);
    }

    @Test
    void paidOrderCannotBePaidAgain() {
        OrderBody order = createOrder(60);
        pay(order.id(), PaymentBody.class);

        ResponseEntity<String> second = pay(order.id(), String.class);
        assertThat(second.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
    }

    @Test
    void callThatFailsTwiceSucceedsOnItsThirdAttempt() {
        CallBody call = startCall(2, 5);
        assertThat(call).isEqualTo(new CallBody(call.id(), 0, "PENDING"));

        // Attempts at about 0 s, 1 s and 3 s.
        await().atMost(Duration.ofSeconds(20))
            .untilAsserted(() -> assertThat(getCall(call.id())).isEqualTo(new CallBody(call.id(), 3, "SUCCEEDED")));
    }

    @Test
    void callThatKeepsFailingGivesUpAfterItsLastAttempt() {
        CallBody call = startCall(10, 2);

        await().atMost(Duration.ofSeconds(20))
            .untilAsserted(() -> assertThat(getCall(call.id())).isEqualTo(new CallBody(call.id(), 2, "GAVE_UP")));
    }

    @Test
    void webhookToAPartnerThatIsDownEndsDeadWithItsErrorAndRunsOnceRequeuedAfterThePartnerIsBack() {
        String event = "order " + UUID.randomUUID() + " paid";
        setPartnerUp(false);
        try {
            long taskId = post("/webhooks", Map.of("event", event), SentBody.class).getBody().taskId();
            // attempts at about 0 s, 1 s and 3 s, the starter's own retries
            await().atMost(Duration.ofSeconds(20)).until(() -> task(taskId).status(), "DEAD"::equals);
            assertThat(task(taskId).attempts()).isEqualTo(3);
            assertThat(task(taskId).lastError()).contains("503 Service Unavailable");
            setPartnerUp(true);
            ResponseEntity<String> requeue = this.rest.post()
                .uri("/actuator/delaytasks/tasks/{id}", taskId)
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("action", "requeue"))
                .retrieve()
                .toEntity(String.class);
            assertThat(requeue.getStatusCode()).isEqualTo(HttpStatus.OK);
            await().atMost(Duration.ofSeconds(10)).until(() -> task(taskId).status(), "EXECUTED"::equals);
            assertThat(this.rest.get().uri("/partner").retrieve().body(PartnerBody.class).received()).contains(event);
        }
        finally {
            setPartnerUp(true);
        }
    }

    @Test
    void theNightlyReportRunsOnceWhileItsLockIsHeld() {
        assertThat(this.orderReport.report()).isPresent();
        assertThat(this.orderReport.report()).as("a second run within lockAtLeastFor is skipped").isEmpty();
    }

    private <T> ResponseEntity<T> pay(long id, Class<T> type) {
        return this.rest.post().uri("/orders/{id}/pay", id).retrieve().toEntity(type);
    }

    private <T> ResponseEntity<T> post(String path, Map<String, ?> body, Class<T> type) {
        return this.rest.post().uri(path).body(body).retrieve().toEntity(type);
    }

    private <T> T get(String path, long id, Class<T> type) {
        return this.rest.get().uri(path, id).retrieve().body(type);
    }

    private void setPartnerUp(boolean up) {
        assertThat(this.rest.put().uri("/partner").body(Map.of("up", up)).retrieve().toBodilessEntity()
            .getStatusCode()).isEqualTo(HttpStatus.OK);
    }

    private TaskBody task(long taskId) {
        return get("/actuator/delaytasks/tasks/{id}", taskId, TaskBody.class);
    }

    private OrderBody createOrder(int timeoutSeconds) {
        ResponseEntity<OrderBody> response = post("/orders", Map.of("timeoutSeconds", timeoutSeconds),
                OrderBody.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        return response.getBody();
    }

    private OrderBody getOrder(long id) {
        return get("/orders/{id}", id, OrderBody.class);
    }

    private CallBody startCall(int failTimes, int maxAttempts) {
        ResponseEntity<CallBody> response = post("/calls", Map.of("failTimes", failTimes, "maxAttempts", maxAttempts),
                CallBody.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        return response.getBody();
    }

    private CallBody getCall(long id) {
        return get("/calls/{id}", id, CallBody.class);
    }

    record OrderBody(long id, String status, Long taskId) {
    }

    record PaymentBody(long id, String status, boolean timeoutCancelled) {
    }

    record CallBody(long id, int attempts, String status) {
    }

    record SentBody(long taskId) {
    }

    record PartnerBody(boolean up, List<String> received) {
    }

    record TaskBody(long taskId, String status, int attempts, String lastError) {
    }

}
