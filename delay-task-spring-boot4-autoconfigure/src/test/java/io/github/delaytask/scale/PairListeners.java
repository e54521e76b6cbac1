package io.github.delaytask.scale;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;

/**
 * One listener for each of the 64 (type, priority) pairs, types 0 to 15 and priorities 0 to 3: each run of a task
 * is committed as a row of {@code runs} (task, pair, worker, start time) by the {@link RunRecorder} before the
 * handler returns, so that a task's runs can be counted whatever happens afterwards.
 * <p>
 * {@code @DelayTaskListener} takes constants, and one method handles one pair, so the 64 methods are written out.
 */
class PairListeners {

    static final int TYPES = 16;

    static final int PRIORITIES = 4;

    static final String WORKER_ID = "scale.worker-id";

    private final RunRecorder recorder;

    PairListeners(RunRecorder recorder) {
        this.recorder = recorder;
    }

    private void record(DelayTask task) {
        this.recorder.record(task);
    }

    @DelayTaskListener(taskType = 0, priority = 0)
    void type0Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 0, priority = 1)
    void type0Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 0, priority = 2)
    void type0Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 0, priority = 3)
    void type0Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 1, priority = 0)
    void type1Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 1, priority = 1)
    void type1Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 1, priority = 2)
    void type1Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 1, priority = 3)
    void type1Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 2, priority = 0)
    void type2Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 2, priority = 1)
    void type2Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 2, priority = 2)
    void type2Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 2, priority = 3)
    void type2Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 3, priority = 0)
    void type3Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 3, priority = 1)
    void type3Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 3, priority = 2)
    void type3Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 3, priority = 3)
    void type3Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 4, priority = 0)
    void type4Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 4, priority = 1)
    void type4Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 4, priority = 2)
    void type4Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 4, priority = 3)
    void type4Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 5, priority = 0)
    void type5Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 5, priority = 1)
    void type5Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 5, priority = 2)
    void type5Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 5, priority = 3)
    void type5Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 6, priority = 0)
    void type6Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 6, priority = 1)
    void type6Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 6, priority = 2)
    void type6Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 6, priority = 3)
    void type6Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 7, priority = 0)
    void type7Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 7, priority = 1)
    void type7Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 7, priority = 2)
    void type7Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 7, priority = 3)
    void type7Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 8, priority = 0)
    void type8Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 8, priority = 1)
    void type8Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 8, priority = 2)
    void type8Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 8, priority = 3)
    void type8Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 9, priority = 0)
    void type9Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 9, priority = 1)
    void type9Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 9, priority = 2)
    void type9Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 9, priority = 3)
    void type9Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 10, priority = 0)
    void type10Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 10, priority = 1)
    void type10Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 10, priority = 2)
    void type10Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 10, priority = 3)
    void type10Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 11, priority = 0)
    void type11Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 11, priority = 1)
    void type11Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 11, priority = 2)
    void type11Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 11, priority = 3)
    void type11Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 12, priority = 0)
    void type12Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 12, priority = 1)
    void type12Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 12, priority = 2)
    void type12Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 12, priority = 3)
    void type12Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 13, priority = 0)
    void type13Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 13, priority = 1)
    void type13Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 13, priority = 2)
    void type13Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 13, priority = 3)
    void type13Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 14, priority = 0)
    void type14Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 14, priority = 1)
    void type14Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 14, priority = 2)
    void type14Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 14, priority = 3)
    void type14Priority3(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 15, priority = 0)
    void type15Priority0(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 15, priority = 1)
    void type15Priority1(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 15, priority = 2)
    void type15Priority2(DelayTask task) {
        record(task);
    }

    @DelayTaskListener(taskType = 15, priority = 3)
    void type15Priority3(DelayTask task) {
        record(task);
    }

}
