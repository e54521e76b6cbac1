package io.github.delaytask.sample.webhook;

import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The webhook endpoints, and a switch that takes the stand-in partner down or brings it back.
 * <pre>
 * POST /webhooks {"event": "order 42 paid"}   answers {"taskId": 7}
 * PUT  /partner  {"up": false}                answers {"up": false, "received": [...]}
 * GET  /partner                               answers {"up": true, "received": ["order 42 paid"]}
 * </pre>
 */
@RestController
class WebhookController {

    private final WebhookService webhooks;

    private final Partner partner;

    WebhookController(WebhookService webhooks, Partner partner) {
        this.webhooks = webhooks;
        this.partner = partner;
    }

    @PostMapping("/webhooks")
    SentView send(@RequestBody SendRequest request) {
        if (request.event() == null || request.event().isBlank()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "event must not be empty");
        }
        return new SentView(this.webhooks.send(request.event()));
    }

    @GetMapping("/partner")
    PartnerView partner() {
        return new PartnerView(this.partner.isUp(), this.partner.received());
    }

    @PutMapping("/partner")
    PartnerView setPartner(@RequestBody PartnerView request) {
        this.partner.setUp(request.up());
        return partner();
    }

    record SendRequest(String event) {
    }

    record SentView(long taskId) {
    }

    record PartnerView(boolean up, List<String> received) {
    }

}
