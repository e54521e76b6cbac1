/**
 * The distributed lock on Redis that keeps instances from running the same job at the same time.
 */
package io.github.delaytask.lock;
