package io.github.delaytask.listener;

import java.util.ArrayList;
import java.util.List;

import io.github.delaytask.PayloadCodec;
import io.github.delaytask.RetryLaterException;
import io.github.delaytask.TaskContextPropagator;
import io.github.delaytask.core.RetryPolicy;
import io.github.delaytask.core.Claims;
import io.github.delaytask.core.Outcomes;
import io.github.delaytask.core.TaskContexts;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Runs the due tasks of every {@code @DelayTaskListener} method on the calling thread, recording each outcome as a
 * listener container does (executed, retried after the listener's back-off, or dead). Public for delay-task-test,
 * whose tests call it instead of waiting for the containers.
 */
public final class ManualDispatcher {

    private static final Log logger = LogFactory.getLog(ManualDispatcher.class);

    private static final int BATCH = 100;

    private final DelayTaskListenerAnnotationBeanPostProcessor processor;

    private final Claims claims;

    private final Outcomes outcomes;

    private final PayloadCodec codec;

    private final RetryPolicy defaults;

    private final TaskContexts contexts;

    /**
     * @param contexts the context each task's add carried, restored around its handler's runs
     */
    public ManualDispatcher(DelayTaskListenerAnnotationBeanPostProcessor processor, Claims claims,
            Outcomes outcomes, PayloadCodec codec, RetryPolicy defaults, TaskContexts contexts) {
        this.contexts = contexts;
        this.processor = processor;
        this.claims = claims;
        this.outcomes = outcomes;
        this.codec = codec;
        this.defaults = defaults;
    }

    /**
     * Run every task that is due, and every task that becomes due while they run (a handler that adds a task due
     * at once), until none is due; tasks whose retry is due later wait for a later call.
     * @return how many handler runs there were, failed ones included
     */
    public int runDue() {
        List<Runner> runners = new ArrayList<>();
        for (ListenerEndpoint endpoint : this.processor.endpoints()) {
            runners.add(new Runner(endpoint, new ListenerMethodInvoker(endpoint, this.codec),
                    endpoint.retryPolicy(this.defaults)));
        }
        int runs = 0;
        boolean claimedAny = true;
        while (claimedAny) {
            claimedAny = false;
            for (Runner runner : runners) {
                Claims.Batch batch = this.claims.claim(runner.endpoint().queue(), BATCH);
                // ids Redis handed out that the database turned down (finished tasks) count as claimed: the next
                // claim may find due tasks behind them
                claimedAny |= batch.taken() > 0;
                for (StoredTask task : batch.tasks()) {
                    run(runner, task);
                    runs++;
                }
            }
        }
        return runs;
    }

    private void run(Runner runner, StoredTask task) {
        try {
            invoke(runner, task);
        }
        catch (Throwable ex) {
            if (!(ex instanceof RetryLaterException)) {
                logger.warn("Task " + task.taskId() + " failed in " + runner.endpoint().describe() + " (attempt "
                        + task.attempt() + " of " + runner.retryPolicy().maxAttempts() + ")", ex);
            }
            this.outcomes.fail(task, ex, runner.retryPolicy());
            return;
        }
        this.outcomes.complete(task);
    }

    /** The handler with the context its add carried, as a listener container runs it. */
    private void invoke(Runner runner, StoredTask task) throws Exception {
        TaskContextPropagator.Restored restored = this.contexts.restore(task.traceContext());
        try {
            runner.invoker().invoke(task.toDelayTask());
        }
        finally {
            try {
                restored.close();
            }
            catch (RuntimeException ex) {
                logger.warn("Could not put the context of task " + task.taskId() + " off the thread", ex);
            }
        }
    }

    private record Runner(ListenerEndpoint endpoint, ListenerMethodInvoker invoker, RetryPolicy retryPolicy) {
    }

}
