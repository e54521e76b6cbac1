/**
 * Help for an application's own tests of its delayed tasks: {@link io.github.delaytask.test.DelayTaskTester}.
 */
@NullMarked
package io.github.delaytask.test;

import org.jspecify.annotations.NullMarked;
