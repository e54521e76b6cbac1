package io.github.delaytask.sample.retry;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The call endpoints.
 * <pre>
 * POST /calls       {"failTimes": 2, "maxAttempts": 5}  answers {"id": 1, "attempts": 0, "status": "PENDING"}
 * GET  /calls/{id}                                      answers {"id": 1, "attempts": 3, "status": "SUCCEEDED"}
 * </pre>
 * The status is {@code PENDING}, {@code SUCCEEDED} or {@code GAVE_UP}.
 */
@RestController
@RequestMapping("/calls")
class CallController {

    private final CallService calls;

    CallController(CallService calls) {
        this.calls = calls;
    }

    @PostMapping
    CallView start(@RequestBody StartCallRequest request) {
        if (request.failTimes() < 0) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "failTimes must not be negative");
        }
        if (request.maxAttempts() < 1) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "maxAttempts must be at least 1");
        }
        return view(this.calls.start(request.failTimes(), request.maxAttempts()));
    }

    @GetMapping("/{id}")
    CallView get(@PathVariable long id) {
        return this.calls.find(id)
            .map(CallController::view)
            .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No call " + id));
    }

    private static CallView view(Call call) {
        return new CallView(call.id(), call.attempts(), call.status());
    }

    record StartCallRequest(int failTimes, int maxAttempts) {
    }

    record CallView(long id, int attempts, CallStatus status) {
    }

}
