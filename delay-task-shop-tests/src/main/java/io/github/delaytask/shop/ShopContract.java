package io.github.delaytask.shop;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delaytask.DeadTaskEvent;
import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;
import io.github.delaytask.DistributedLock;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The shop's handlers of the rest of the contract: one that records the tenant it ran for, one whose partner is
 * down, a listener of deaths, and a nightly job that must run on one instance at a time.
 */
@Component
public class ShopContract {

    /** Tasks that record the tenant they ran for. */
    public static final int NOTICE = 3;

    /** Tasks whose partner is always down. */
    public static final int PARTNER_CALL = 4;

    private final Map<Long, List<Long>> noticeTenants = new ConcurrentHashMap<>();

    private final Map<Long, AtomicInteger> partnerFailures = new ConcurrentHashMap<>();

    private final List<DeadTaskEvent> deaths = new CopyOnWriteArrayList<>();

    private final AtomicInteger reports = new AtomicInteger();

    @DelayTaskListener(taskType = NOTICE, name = "notice")
    void notice(DelayTask task) {
        this.noticeTenants.computeIfAbsent(task.getTaskId(), (id) -> new CopyOnWriteArrayList<>())
            .add(ShopTenant.current());
    }

    @DelayTaskListener(taskType = PARTNER_CALL, name = "partner-call", maxAttempts = 2, initialDelay = "100ms")
    void partnerCall(DelayTask task) {
        this.partnerFailures.computeIfAbsent(task.getTaskId(), (id) -> new AtomicInteger()).incrementAndGet();
        throw new IllegalStateException("partner down");
    }

    @EventListener
    void dead(DeadTaskEvent event) {
        this.deaths.add(event);
    }

    /** The nightly report: one instance at a time; holds the lock until released. */
    @DistributedLock(name = "shop-nightly-report", lockAtMostFor = "1m")
    public String nightlyReport(CountDownLatch started, CountDownLatch release) throws InterruptedException {
        started.countDown();
        release.await(30, TimeUnit.SECONDS);
        return "report " + this.reports.incrementAndGet();
    }

    public List<Long> noticeTenants(long taskId) {
        return this.noticeTenants.getOrDefault(taskId, List.of());
    }

    public int partnerFailures(long taskId) {
        AtomicInteger failures = this.partnerFailures.get(taskId);
        return (failures != null) ? failures.get() : 0;
    }

    public List<DeadTaskEvent> deaths() {
        return List.copyOf(this.deaths);
    }

}
