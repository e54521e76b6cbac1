package io.github.delaytask.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delaytask.store.StoredTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which leases {@link Leases} extends, and what their handlers then have: no server, the time given by the test.
 */
class LeasesTests {

    private static final long LEASE = Duration.ofSeconds(30).toNanos();

    private final List<List<Long>> renewed = new ArrayList<>();

    private RuntimeException failure;

    private final Leases leases = new Leases((running) -> {
        if (this.failure != null) {
            throw this.failure;
        }
        this.renewed.add(running.stream().map(StoredTask::taskId).toList());
        return running.size();
    }, LEASE);

    @Test
    void extendsInOneCallTheLeasesThatRanForAThirdOfOneOrMoreAndNoneYounger() {
        long now = 1_000_000_000L;
        Leases.Lease old = this.leases.started(task(1), now + LEASE / 2);
        Leases.Lease older = this.leases.started(task(2), now + LEASE / 10);
        Leases.Lease young = this.leases.started(task(3), now + LEASE - 1);
        assertThat(this.leases.renewDue(now)).isEqualTo(2);
        assertThat(this.renewed).singleElement().asList().containsExactlyInAnyOrder(1L, 2L);
        assertThat(old.recordBy()).isEqualTo(now + LEASE);
        assertThat(older.recordBy()).isEqualTo(now + LEASE);
        assertThat(young.recordBy()).isEqualTo(now + LEASE - 1);
    }

    @Test
    void aLeaseWhoseHandlerEndedIsNoLongerExtended() {
        long now = 1_000_000_000L;
        Leases.Lease lease = this.leases.started(task(1), now);
        this.leases.ended(lease);
        assertThat(this.leases.renewDue(now)).isZero();
        assertThat(this.renewed).isEmpty();
    }

    @Test
    void aFailedExtensionLeavesTheLeasesAsTheyWereAndTheNextRoundTriesAgain() {
        long now = 1_000_000_000L;
        Leases.Lease lease = this.leases.started(task(1), now + LEASE / 2);
        this.failure = new IllegalStateException("database down");
        this.leases.renewDue(now);
        assertThat(lease.recordBy()).isEqualTo(now + LEASE / 2);
        this.failure = null;
        this.leases.renewDue(now + LEASE / 3);
        assertThat(lease.recordBy()).isEqualTo(now + LEASE / 3 + LEASE);
        assertThat(this.renewed).containsExactly(List.of(1L));
    }

    private static StoredTask task(long id) {
        return new StoredTask(id, 1, 0, 0, new byte[0], 2, 1, null);
    }

}
