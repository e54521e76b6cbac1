package io.github.delaytask.listener;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many tasks one claim may take: the batch size, within 64 MB of the largest parameters allowed.
 */
class ListenerSettingsTests {

    private static final long KB = 1024;

    private static final long MB = 1024 * KB;

    @Test
    void withTheDefaultParametersSizeAClaimTakesTheWholeBatch() {
        assertThat(ListenerSettings.claimBatch(100, 64 * KB)).isEqualTo(100);
        assertThat(ListenerSettings.claimBatch(1000, 64 * KB)).isEqualTo(1000);
    }

    @Test
    void largeParametersMakeAClaimTakeNoMoreThanSixtyFourMegabytesOfThem() {
        // MySQL's MEDIUMBLOB: 100 tasks of 16 MB each would be 1.6 GB in one answer
        assertThat(ListenerSettings.claimBatch(100, 16 * MB)).isEqualTo(4);
        assertThat(ListenerSettings.claimBatch(100, MB)).isEqualTo(64);
    }

    @Test
    void aClaimTakesOneTaskAtLeast() {
        assertThat(ListenerSettings.claimBatch(100, 1024 * MB)).isEqualTo(1);
        assertThat(ListenerSettings.claimBatch(1, 16 * MB)).isEqualTo(1);
    }

}
