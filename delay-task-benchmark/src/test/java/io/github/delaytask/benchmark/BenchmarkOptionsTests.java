package io.github.delaytask.benchmark;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BenchmarkOptionsTests {

    @Test
    void allIncludesTheScenariosOfSeveralInstancesAndTheSecondDbScheduler() {
        BenchmarkOptions options = BenchmarkOptions.parse();
        assertThat(options.scenarios()).contains("many-queues", "idle-cost", "cross-instance", "steady-load");
        assertThat(options.systems()).contains("db-scheduler", "db-scheduler-best");
    }

    @Test
    void scenariosAreChosenByName() {
        assertThat(BenchmarkOptions.parse("--scenarios=steady-load,idle-cost").scenarios())
            .containsExactly("idle-cost", "steady-load");
    }

    @Test
    void anUnknownScenarioIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--scenarios=idle"))
            .withMessageContaining("Unknown scenario 'idle'");
    }

    @Test
    void theUsageNamesEveryScenarioAndSystem() {
        BenchmarkOptions.SCENARIOS.forEach((scenario) -> assertThat(BenchmarkOptions.USAGE).contains(scenario));
        BenchmarkOptions.SYSTEMS.forEach((system) -> assertThat(BenchmarkOptions.USAGE).contains(system));
    }

}
