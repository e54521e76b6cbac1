package io.github.delaytask.autoconfigure;

import java.time.Duration;

import io.github.delaytask.health.DelayTaskHealth;
import io.github.delaytask.testsupport.BootLine;
import io.github.delaytask.testsupport.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@code DelayTaskHealthContributorAutoConfiguration}, a class of each Boot line.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DelayTaskHealthContributorAutoConfigurationTests {

    private static final String INDICATOR = "delayTaskHealthIndicator";

    private TestBackend backend;

    private ApplicationContextRunner contextRunner;

    @BeforeAll
    void startBackend() {
        this.backend = TestBackend.embedded();
        this.contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.DATA))
            .withConfiguration(AutoConfigurations.of(DelayTaskAutoConfiguration.class,
                    DelayTaskHealthContributorAutoConfiguration.class))
            .withPropertyValues(this.backend.properties().toArray(new String[0]));
    }

    @AfterAll
    void stopBackend() {
        this.backend.close();
    }

    @Test
    void withBootsHealthSupportTheDelayTaskHealthIndicatorIsThere() {
        this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
            .hasBean(INDICATOR)
            .hasSingleBean(DelayTaskHealth.class)
            .getBean(INDICATOR)
            .isInstanceOf(BootLine.HEALTH_INDICATOR));
    }

    @Test
    void managementHealthDelaytaskEnabledFalseSwitchesItOff() {
        this.contextRunner.withPropertyValues("management.health.delaytask.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(INDICATOR)
                .doesNotHaveBean(DelayTaskHealth.class));
    }

    @Test
    void withHealthIndicatorsOffByDefaultItIsThereOnlyWhenEnabledByName() {
        this.contextRunner.withPropertyValues("management.health.defaults.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(INDICATOR));
        this.contextRunner
            .withPropertyValues("management.health.defaults.enabled=false", "management.health.delaytask.enabled=true")
            .run((context) -> assertThat(context).hasBean(INDICATOR));
    }

    @Test
    void withoutBootsHealthSupportOnTheClassPathThereIsNone() {
        this.contextRunner.withClassLoader(new FilteredClassLoader(BootLine.HEALTH_INDICATOR))
            .run((context) -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(INDICATOR)
                .doesNotHaveBean(DelayTaskHealth.class));
    }

    @Test
    void backsOffWhenTheStarterIsOff() {
        this.contextRunner.withPropertyValues("delay-task.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(INDICATOR));
    }

    @Test
    void unreachableAfterIsBoundAndANegativeOneFailsStartUpNamingTheProperty() {
        this.contextRunner.withPropertyValues("delay-task.health.unreachable-after=3s")
            .run((context) -> assertThat(context.getBean(DelayTaskProperties.class).getHealth().getUnreachableAfter())
                .isEqualTo(Duration.ofSeconds(3)));
        this.contextRunner.withPropertyValues("delay-task.health.unreachable-after=-1s")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessage("delay-task.health.unreachable-after must not be negative"));
    }

}
