package io.github.delaytask.benchmark.system;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskListener;

/**
 * The 64 listeners of the scenarios of several queues, one per queue: task types {@value #FIRST_TYPE} to 115, each
 * with priorities 0 to 3. Each only tells the sink, as {@link TaskKind#QUEUES}. An annotation attribute must be a
 * constant, hence one method per queue.
 */
class QueueListeners {

    static final int FIRST_TYPE = 100;

    static final int TYPES = 16;

    static final int PRIORITIES = 4;

    static final int QUEUES = TYPES * PRIORITIES;

    private final TaskSink sink;

    QueueListeners(TaskSink sink) {
        this.sink = sink;
    }

    /** The queue of the nth task added: round robin over the queues. */
    static int taskType(long n) {
        return FIRST_TYPE + (int) Math.floorMod(n, (long) QUEUES) / PRIORITIES;
    }

    static int priority(long n) {
        return (int) Math.floorMod(n, (long) PRIORITIES);
    }

    private void handled(DelayTask task) {
        this.sink.handled(TaskKind.QUEUES, task.getExecuteTime());
    }

    @DelayTaskListener(taskType = 100, priority = 0)
    public void type100priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 100, priority = 1)
    public void type100priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 100, priority = 2)
    public void type100priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 100, priority = 3)
    public void type100priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 101, priority = 0)
    public void type101priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 101, priority = 1)
    public void type101priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 101, priority = 2)
    public void type101priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 101, priority = 3)
    public void type101priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 102, priority = 0)
    public void type102priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 102, priority = 1)
    public void type102priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 102, priority = 2)
    public void type102priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 102, priority = 3)
    public void type102priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 103, priority = 0)
    public void type103priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 103, priority = 1)
    public void type103priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 103, priority = 2)
    public void type103priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 103, priority = 3)
    public void type103priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 104, priority = 0)
    public void type104priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 104, priority = 1)
    public void type104priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 104, priority = 2)
    public void type104priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 104, priority = 3)
    public void type104priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 105, priority = 0)
    public void type105priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 105, priority = 1)
    public void type105priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 105, priority = 2)
    public void type105priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 105, priority = 3)
    public void type105priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 106, priority = 0)
    public void type106priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 106, priority = 1)
    public void type106priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 106, priority = 2)
    public void type106priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 106, priority = 3)
    public void type106priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 107, priority = 0)
    public void type107priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 107, priority = 1)
    public void type107priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 107, priority = 2)
    public void type107priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 107, priority = 3)
    public void type107priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 108, priority = 0)
    public void type108priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 108, priority = 1)
    public void type108priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 108, priority = 2)
    public void type108priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 108, priority = 3)
    public void type108priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 109, priority = 0)
    public void type109priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 109, priority = 1)
    public void type109priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 109, priority = 2)
    public void type109priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 109, priority = 3)
    public void type109priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 110, priority = 0)
    public void type110priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 110, priority = 1)
    public void type110priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 110, priority = 2)
    public void type110priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 110, priority = 3)
    public void type110priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 111, priority = 0)
    public void type111priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 111, priority = 1)
    public void type111priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 111, priority = 2)
    public void type111priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 111, priority = 3)
    public void type111priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 112, priority = 0)
    public void type112priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 112, priority = 1)
    public void type112priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 112, priority = 2)
    public void type112priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 112, priority = 3)
    public void type112priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 113, priority = 0)
    public void type113priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 113, priority = 1)
    public void type113priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 113, priority = 2)
    public void type113priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 113, priority = 3)
    public void type113priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 114, priority = 0)
    public void type114priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 114, priority = 1)
    public void type114priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 114, priority = 2)
    public void type114priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 114, priority = 3)
    public void type114priority3(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 115, priority = 0)
    public void type115priority0(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 115, priority = 1)
    public void type115priority1(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 115, priority = 2)
    public void type115priority2(DelayTask task) { handled(task); }

    @DelayTaskListener(taskType = 115, priority = 3)
    public void type115priority3(DelayTask task) { handled(task); }

}
