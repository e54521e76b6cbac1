/**
 * The refresh and reload jobs, and the lifecycle bean that runs them.
 */
package io.github.delaytask.scheduling;
