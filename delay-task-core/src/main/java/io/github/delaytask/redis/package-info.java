/**
 * The Redis side: key names, Lua scripts and the queue operations built on them.
 */
package io.github.delaytask.redis;
