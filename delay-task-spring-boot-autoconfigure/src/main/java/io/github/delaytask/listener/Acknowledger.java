package io.github.delaytask.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

import io.github.delaytask.core.TaskBroker;
import io.github.delaytask.store.StoredTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Records executed tasks in batches: whatever finished while the previous batch was being written goes into the
 * next one, so under load one transaction and one Redis call acknowledge many tasks, and when idle a task is
 * acknowledged at once. A task whose acknowledgement fails stays leased and is delivered again after the lease.
 */
final class Acknowledger implements Runnable {

    private static final Log logger = LogFactory.getLog(Acknowledger.class);

    private static final int MAX_BATCH = 500;

    private final TaskBroker broker;

    private final IntConsumer recorded;

    private final BlockingQueue<StoredTask> pending = new LinkedBlockingQueue<>();

    private volatile boolean running;

    private Thread thread;

    Acknowledger(TaskBroker broker, IntConsumer recorded) {
        this.broker = broker;
        this.recorded = recorded;
    }

    void start() {
        this.running = true;
        this.thread = new Thread(this, "delay-task-acknowledger");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    void add(StoredTask executed) {
        this.pending.add(executed);
    }

    /** Acknowledge what is pending, then stop. */
    void stop(long timeoutMillis) throws InterruptedException {
        this.running = false;
        if (this.thread != null) {
            this.thread.join(timeoutMillis);
        }
    }

    @Override
    public void run() {
        while (this.running || !this.pending.isEmpty()) {
            try {
                StoredTask first = this.pending.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                List<StoredTask> batch = new ArrayList<>();
                batch.add(first);
                this.pending.drainTo(batch, MAX_BATCH - 1);
                acknowledge(batch);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void acknowledge(List<StoredTask> batch) {
        try {
            this.broker.completeAll(batch);
        }
        catch (RuntimeException ex) {
            logger.error("Could not record " + batch.size() + " executed task(s); they will be delivered again when "
                    + "their lease runs out", ex);
        }
        finally {
            this.recorded.accept(batch.size());
        }
    }

}
