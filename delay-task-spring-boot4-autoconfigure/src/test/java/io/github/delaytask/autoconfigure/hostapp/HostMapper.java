package io.github.delaytask.autoconfigure.hostapp;

import com.baomidou.mybatisplus.core.metadata.IPage;
import com.baomidou.mybatisplus.extension.plugins.pagination.Page;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Select;

/**
 * The host application's own mapper, found by MyBatis-Plus's automatic {@code @Mapper} scanning.
 */
@Mapper
public interface HostMapper {

    @Select("SELECT task_id FROM taskinfo_logs ORDER BY task_id")
    IPage<Long> pageOfTaskIds(Page<Long> page);

}
