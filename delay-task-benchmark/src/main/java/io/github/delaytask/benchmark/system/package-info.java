/**
 * The systems under test, each behind {@link io.github.delaytask.benchmark.system.QueueSystem}, and the services
 * they share.
 */
package io.github.delaytask.benchmark.system;
