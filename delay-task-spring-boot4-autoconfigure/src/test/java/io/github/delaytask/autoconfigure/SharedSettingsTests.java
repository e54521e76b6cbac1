package io.github.delaytask.autoconfigure;

import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Instances of one key prefix, as contexts on one Redis and database, whose reload interval, preload window, idle
 * poll interval or wake-ups differ: the settings every instance must share.
 */
@ExtendWith(OutputCaptureExtension.class)
class SharedSettingsTests {

    private TestBackend backend;

    private ApplicationContextRunner runner;

    @BeforeEach
    void createBackend() {
        this.backend = TestBackend.embedded();
        this.runner = this.backend.applicationRunner();
    }

    @AfterEach
    void closeBackend() {
        this.backend.close();
    }

    @Test
    void anInstanceWhoseSettingsDifferFromTheRunningOnesRefusesToStartAndNamesEachSetting() {
        this.runner.run((running) -> {
            assertThat(running).hasNotFailed();
            this.runner
                .withPropertyValues("delay-task.preload-window=10m", "delay-task.listener.idle-poll-interval=10s")
                .run((other) -> assertThat(other).getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("delay-task.preload-window is PT10M here but PT5M there")
                    .hasMessageContaining("delay-task.listener.idle-poll-interval is PT10S here but PT30S there")
                    .hasMessageNotContaining("wake-ups")
                    .hasMessageContaining("delay-task.refuse-conflicting-settings=false"));
            this.runner.withPropertyValues("delay-task.listener.wake-ups=false")
                .run((other) -> assertThat(other).getFailure()
                    .rootCause()
                    .hasMessageContaining("delay-task.listener.wake-ups is false here but true there"));
            // settings the instances need not share may differ: the feed and the full reload at paces of their own
            this.runner.withPropertyValues("delay-task.listener.concurrency=3", "delay-task.lease=1m",
                    "delay-task.reload-interval=2m", "delay-task.feed-interval=2s")
                .run((same) -> assertThat(same).hasNotFailed());
        });
    }

    @Test
    void withRefuseConflictingSettingsOffAnInstanceStartsAndLogsTheDifference(CapturedOutput output) {
        this.runner.run((running) -> this.runner
            .withPropertyValues("delay-task.preload-window=10m", "delay-task.refuse-conflicting-settings=false")
            .run((other) -> {
                assertThat(other).hasNotFailed();
                assertThat(output).contains("delay-task.preload-window is PT10M here but PT5M there")
                    .contains("Starting all the same");
            }));
    }

    @Test
    void onceTheLastInstanceWithASettingStopsTheSettingCanChange() {
        this.runner.run((first) -> this.runner.run((second) -> assertThat(second).hasNotFailed()));
        this.runner.withPropertyValues("delay-task.preload-window=10m")
            .run((changed) -> assertThat(changed).hasNotFailed());
    }

}
