/**
 * The scenarios: each measures one kind of figure on every system.
 */
package io.github.delaytask.benchmark.scenario;
