/**
 * The Redis side: key names, Lua scripts and the queue operations built on them.
 */
@NullMarked
package io.github.delaytask.redis;

import org.jspecify.annotations.NullMarked;
