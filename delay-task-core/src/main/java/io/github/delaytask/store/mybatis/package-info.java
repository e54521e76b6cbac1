/**
 * The task store on MyBatis-Plus: entities with a {@code @Version} column, and their mappers.
 */
@NullMarked
package io.github.delaytask.store.mybatis;

import org.jspecify.annotations.NullMarked;
