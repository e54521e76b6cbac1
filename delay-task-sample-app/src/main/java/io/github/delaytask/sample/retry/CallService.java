package io.github.delaytask.sample.retry;

import java.time.Duration;
import java.util.Optional;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DelayTaskService;
import io.github.delaytask.sample.TaskTypes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Calls the flaky service until it succeeds or the attempts run out, waiting twice as long after each failure.
 * <p>
 * Every attempt, the first included, is a delayed task, so a call in progress survives a restart of the app: the
 * next attempt is in the database, not in a thread's memory.
 */
@Service
public class CallService {

    /** Wait after the first failed attempt; it doubles after each further one. */
    static final Duration FIRST_BACK_OFF = Duration.ofSeconds(1);

    /** Longest wait between two attempts, however many have failed. */
    static final Duration MAX_BACK_OFF = Duration.ofMinutes(10);

    private static final Logger logger = LoggerFactory.getLogger(CallService.class);

    private final CallRepository calls;

    private final FlakyService flakyService;

    private final DelayTaskService tasks;

    private final TransactionTemplate transaction;

    CallService(CallRepository calls, FlakyService flakyService, DelayTaskService tasks,
            TransactionTemplate transaction) {
        this.calls = calls;
        this.flakyService = flakyService;
        this.tasks = tasks;
        this.transaction = transaction;
    }

    /**
     * Start a call whose first attempt runs at once.
     * @param failTimes how many attempts the flaky service fails before one succeeds
     * @param maxAttempts attempts allowed before giving up
     * @return the new call
     */
    public Call start(int failTimes, int maxAttempts) {
        return this.transaction.execute((status) -> {
            long id = this.calls.insert(maxAttempts);
            this.flakyService.failNextCalls(id, failTimes);
            // Due now; it runs once this transaction commits, as the starter hands a task to Redis only then.
            this.tasks.addTask(attemptTask(new CallAttempt(id, 1), Duration.ZERO));
            return new Call(id, 0, maxAttempts, CallStatus.PENDING);
        });
    }

    public Optional<Call> find(long id) {
        return this.calls.find(id);
    }

    /**
     * Make one attempt of a call, then record it and, if it failed and attempts are left, schedule the next one.
     * @param attempt the call and the attempt's number, read from the task's JSON payload
     */
    @DelayTaskListener(taskType = TaskTypes.CALL_ATTEMPT, name = "call-attempt")
    public void attempt(CallAttempt attempt) {
        Call call = this.calls.find(attempt.callId()).orElse(null);
        // A task can run twice (the app stopped after the attempt but before the starter marked the task executed):
        // the recorded attempts tell whether this one is done already.
        if (call == null || call.status() != CallStatus.PENDING || call.attempts() >= attempt.number()) {
            return;
        }
        // Outside the transaction: a remote call must not hold a database connection while it waits.
        boolean succeeded = callFlakyService(attempt);
        this.transaction.executeWithoutResult((status) -> recordOutcome(call, attempt.number(), succeeded));
    }

    private boolean callFlakyService(CallAttempt attempt) {
        try {
            this.flakyService.call(attempt.callId());
            return true;
        }
        catch (FlakyService.CallFailedException ex) {
            // Handled, not thrown: a listener that throws is retried by the starter, whereas this sample counts the
            // attempts in its own table and schedules each retry as a new task itself.
            logger.info("Call {} attempt {} failed: {}", attempt.callId(), attempt.number(), ex.getMessage());
            return false;
        }
    }

    private void recordOutcome(Call call, int number, boolean succeeded) {
        CallStatus status = CallStatus.PENDING;
        if (succeeded) {
            status = CallStatus.SUCCEEDED;
        }
        else if (number >= call.maxAttempts()) {
            status = CallStatus.GAVE_UP;
        }
        if (!this.calls.recordAttempt(call.id(), number, status)) {
            return;
        }
        if (status == CallStatus.PENDING) {
            // In the same transaction as the attempt count: the next attempt exists if and only if this one is
            // recorded.
            this.tasks.addTask(attemptTask(new CallAttempt(call.id(), number + 1), backOff(number)));
        }
    }

    /**
     * Wait before the next attempt: 1 s after the first failure, then 2 s, 4 s and so on, up to {@link #MAX_BACK_OFF}.
     * @param failedAttempts attempts failed so far, from 1
     * @return the wait
     */
    static Duration backOff(int failedAttempts) {
        // The cap on the shift keeps a large attempt count from overflowing before MAX_BACK_OFF applies.
        Duration wait = FIRST_BACK_OFF.multipliedBy(1L << Math.min(failedAttempts - 1, 30));
        return (wait.compareTo(MAX_BACK_OFF) < 0) ? wait : MAX_BACK_OFF;
    }

    private static DelayTask attemptTask(CallAttempt attempt, Duration delay) {
        return DelayTask.builder(TaskTypes.CALL_ATTEMPT).delay(delay).payload(attempt).build();
    }

}
