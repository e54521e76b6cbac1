package io.github.delaytask.store;

/**
 * A task to store. Public for wiring.
 * @param taskId the id to use, or null to have one assigned
 * @param taskType the type
 * @param priority the priority
 * @param executeTime when it is due, epoch ms
 * @param parameters the raw parameters, or null
 * @param bizKey the business key, or null
 */
public record NewTask(Long taskId, int taskType, int priority, long executeTime, byte[] parameters, String bizKey) {
}
