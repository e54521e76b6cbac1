/**
 * The task store on MyBatis-Plus: entities with a {@code @Version} column, and their mappers.
 */
package io.github.delaytask.store.mybatis;
