package io.github.delaytask.sample.order;

import java.time.Duration;
import java.util.Optional;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The order endpoints.
 * <pre>
 * POST /orders          {"timeoutSeconds": 30}  answers {"id": 1, "status": "UNPAID", "taskId": ...}
 * POST /orders/{id}/pay                         answers {"id": 1, "status": "PAID", "timeoutCancelled": true}
 * GET  /orders/{id}                             answers {"id": 1, "status": "UNPAID|PAID|CANCELLED"}
 * </pre>
 */
@RestController
@RequestMapping("/orders")
class OrderController {

    private final OrderService orders;

    OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping
    Order create(@RequestBody CreateOrderRequest request) {
        if (request.timeoutSeconds() <= 0) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "timeoutSeconds must be positive");
        }
        return this.orders.create(Duration.ofSeconds(request.timeoutSeconds()));
    }

    @PostMapping("/{id}/pay")
    Payment pay(@PathVariable long id) {
        Optional<Payment> payment = this.orders.pay(id);
        if (payment.isPresent()) {
            return payment.get();
        }
        Order order = find(id);
        throw new ResponseStatusException(HttpStatus.CONFLICT,
                "Order " + id + " is " + order.status() + " and can no longer be paid");
    }

    @GetMapping("/{id}")
    OrderView get(@PathVariable long id) {
        Order order = find(id);
        return new OrderView(order.id(), order.status());
    }

    private Order find(long id) {
        return this.orders.find(id)
            .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No order " + id));
    }

    record CreateOrderRequest(long timeoutSeconds) {
    }

    record OrderView(long id, OrderStatus status) {
    }

}
