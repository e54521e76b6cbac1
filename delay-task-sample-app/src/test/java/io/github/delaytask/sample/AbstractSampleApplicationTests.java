package io.github.delaytask.sample;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's scenarios, end to end over HTTP. Subclasses choose where the app runs.
 */
@AutoConfigureTestRestTemplate
abstract class AbstractSampleApplicationTests {

    @Autowired
    private TestRestTemplate rest;

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

        ResponseEntity<PaymentBody> payment = this.rest.postForEntity("/orders/{id}/pay", null, PaymentBody.class,
                order.id());
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
        this.rest.postForEntity("/orders/{id}/pay", null, PaymentBody.class, order.id());

        ResponseEntity<String> second = this.rest.postForEntity("/orders/{id}/pay", null, String.class, order.id());
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

    private OrderBody createOrder(int timeoutSeconds) {
        ResponseEntity<OrderBody> response = this.rest.postForEntity("/orders",
                Map.of("timeoutSeconds", timeoutSeconds), OrderBody.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        return response.getBody();
    }

    private OrderBody getOrder(long id) {
        return this.rest.getForObject("/orders/{id}", OrderBody.class, id);
    }

    private CallBody startCall(int failTimes, int maxAttempts) {
        ResponseEntity<CallBody> response = this.rest.postForEntity("/calls",
                Map.of("failTimes", failTimes, "maxAttempts", maxAttempts), CallBody.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        return response.getBody();
    }

    private CallBody getCall(long id) {
        return this.rest.getForObject("/calls/{id}", CallBody.class, id);
    }

    record OrderBody(long id, String status, Long taskId) {
    }

    record PaymentBody(long id, String status, boolean timeoutCancelled) {
    }

    record CallBody(long id, int attempts, String status) {
    }

}
