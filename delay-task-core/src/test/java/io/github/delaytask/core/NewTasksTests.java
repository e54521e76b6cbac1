package io.github.delaytask.core;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import io.github.delaytask.DelayTask;
import io.github.delaytask.PayloadCodec;
import io.github.delaytask.store.NewTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a caller asks to add, checked and turned into what is stored, without a server.
 */
class NewTasksTests {

    private static final long NOW = 1_700_000_000_000L;

    /** Writes a payload as its {@code toString()}; refuses one named "unwritable". */
    private static final PayloadCodec CODEC = new PayloadCodec() {

        @Override
        public byte[] write(Object payload) {
            if ("unwritable".equals(payload)) {
                throw new IllegalArgumentException("cannot write it");
            }
            return payload.toString().getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Reader reader(Type type) {
            return (parameters) -> new String(parameters, StandardCharsets.UTF_8);
        }

    };

    private final NewTasks newTasks = new NewTasks(CODEC, 16);

    @Test
    void aDelayCountsFromNow() {
        NewTask task = this.newTasks.of(DelayTask.builder(7).priority(2).delay(Duration.ofMinutes(30)).build(), NOW);
        assertThat(task.executeTime()).isEqualTo(NOW + Duration.ofMinutes(30).toMillis());
        assertThat(task.taskType()).isEqualTo(7);
        assertThat(task.priority()).isEqualTo(2);
    }

    @Test
    void anExecuteTimeIsKeptAsGiven() {
        Instant at = Instant.ofEpochMilli(NOW + 5000);
        assertThat(this.newTasks.of(DelayTask.builder(1).executeAt(at).build(), NOW).executeTime())
            .isEqualTo(at.toEpochMilli());
    }

    @Test
    void aTaskWithNeitherTimeNorDelayIsDueAtOnceWhateverTheClocksSay() {
        assertThat(this.newTasks.of(DelayTask.builder(1).build(), NOW).executeTime()).isZero();
    }

    @Test
    void aPayloadIsWrittenByTheCodec() {
        NewTask task = this.newTasks.of(DelayTask.builder(1).payload("order-1").bizKey("order:1").build(), NOW);
        assertThat(new String(task.parameters(), StandardCharsets.UTF_8)).isEqualTo("order-1");
        assertThat(task.bizKey()).isEqualTo("order:1");
    }

    @Test
    void aPayloadTheCodecCannotWriteIsRefusedNamingTheTask() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> this.newTasks.of(DelayTask.builder(1).payload("unwritable").build(), NOW))
            .withMessageStartingWith("Cannot write the payload of")
            .withRootCauseInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parametersLargerThanTheLimitAreRefusedNamingTheProperty() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> this.newTasks.of(DelayTask.builder(1).parameters("seventeen bytes!!").build(), NOW))
            .withMessageContaining("17 bytes")
            .withMessageContaining("delay-task.max-parameters-size (16)");
        assertThat(this.newTasks.of(DelayTask.builder(1).parameters("sixteen bytes!!!").build(), NOW).parameters())
            .hasSize(16);
    }

    @Test
    void aTypeOrPriorityOutOfRangeIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> this.newTasks.of(DelayTask.builder(-1).build(), NOW))
            .withMessageContaining("Task type -1");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> this.newTasks.of(DelayTask.builder(1).priority(DelayTask.MAX_PRIORITY + 1).build(), NOW))
            .withMessageContaining("Priority " + (DelayTask.MAX_PRIORITY + 1));
        assertThatIllegalArgumentException().isThrownBy(() -> NewTasks.queueOf(DelayTask.MAX_TYPE + 1, 0));
        assertThat(NewTasks.queueOf(DelayTask.MAX_TYPE, DelayTask.MAX_PRIORITY))
            .isEqualTo(new QueueId(DelayTask.MAX_TYPE, DelayTask.MAX_PRIORITY));
    }

    @Test
    void aBlankOrOverlongBusinessKeyIsRefused() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> this.newTasks.of(DelayTask.builder(1).bizKey(" ").build(), NOW));
        assertThatIllegalArgumentException().isThrownBy(() -> this.newTasks
            .of(DelayTask.builder(1).bizKey("k".repeat(DelayTask.MAX_BIZ_KEY_LENGTH + 1)).build(), NOW));
        assertThat(this.newTasks.of(DelayTask.builder(1).bizKey("k".repeat(DelayTask.MAX_BIZ_KEY_LENGTH)).build(), NOW)
            .bizKey()).hasSize(DelayTask.MAX_BIZ_KEY_LENGTH);
    }

    @Test
    void aTaskIdMustBePositive() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> this.newTasks.of(DelayTask.builder(1).taskId(0).build(), NOW))
            .withMessageContaining("Task id 0");
        assertThat(this.newTasks.of(DelayTask.builder(1).taskId(5).build(), NOW).taskId()).isEqualTo(5L);
    }

    @Test
    void aDelayThatIsNegativeOrPutsTheTaskPastTheLastTimeIsRefused() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> this.newTasks.of(DelayTask.builder(1).delay(Duration.ofMillis(-1)).build(), NOW))
            .withMessageContaining("must not be negative");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> this.newTasks
                .of(DelayTask.builder(1).delay(Duration.ofMillis(DelayTask.MAX_EXECUTE_TIME - NOW + 1)).build(), NOW))
            .withMessageContaining("puts the task after");
    }

    @Test
    void anExecuteTimeOutsideTheStoredRangeIsRefused() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> NewTasks.checkExecuteTime(DelayTask.MAX_EXECUTE_TIME + 1))
            .withMessageContaining("is not between 0 (1970) and");
        assertThatIllegalArgumentException().isThrownBy(() -> NewTasks.checkExecuteTime(-1));
    }

}
