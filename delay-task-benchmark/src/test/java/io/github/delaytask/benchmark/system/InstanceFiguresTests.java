package io.github.delaytask.benchmark.system;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class InstanceFiguresTests {

    @Test
    void figuresSurviveTheLineAnInstanceJvmPrints() {
        Histogram lateness = new Histogram(3);
        lateness.recordValue(1500);
        lateness.recordValue(250_000);
        InstanceFigures figures = new InstanceFigures(2, 10, 20, 1, 3, lateness);
        InstanceFigures read = InstanceFigures.parse(figures.line());
        assertThat(read.handled()).isEqualTo(2);
        assertThat(read.firstMicros()).isEqualTo(10);
        assertThat(read.lastMicros()).isEqualTo(20);
        assertThat(read.claims()).isEqualTo(1);
        assertThat(read.transactions()).isEqualTo(3);
        assertThat(read.lateness()).isEqualTo(lateness);
    }

    @Test
    void theFiguresOfSeveralJvmsAddUp() {
        Histogram one = new Histogram(3);
        one.recordValue(1000);
        Histogram two = new Histogram(3);
        two.recordValue(9000);
        InstanceFigures sum = new InstanceFigures(4, 10, 20, 2, 5, one)
            .plus(new InstanceFigures(6, 5, 15, 1, 2, two));
        assertThat(sum.handled()).isEqualTo(10);
        assertThat(sum.firstMicros()).isEqualTo(5);
        assertThat(sum.lastMicros()).isEqualTo(20);
        assertThat(sum.tasksPerClaim()).isEqualTo(10 / 3.0);
        assertThat(sum.lateness().getTotalCount()).isEqualTo(2);
        assertThat(sum.lateness().getMaxValue()).isGreaterThanOrEqualTo(9000);
    }

}
