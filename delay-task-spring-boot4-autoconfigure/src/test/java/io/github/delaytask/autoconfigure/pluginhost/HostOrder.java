package io.github.delaytask.autoconfigure.pluginhost;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;

/**
 * A row of the host application's own table; its tenant column is the tenant-line plugin's to fill.
 */
@TableName("host_order")
public class HostOrder {

    @TableId(type = IdType.INPUT)
    private Long id;

    private Long deptId;

    private String name;

    public HostOrder() {
    }

    public HostOrder(long id, long deptId, String name) {
        this.id = id;
        this.deptId = deptId;
        this.name = name;
    }

    public Long getId() {
        return this.id;
    }

    public void setId(Long id) {
        this.id = id;
    }

    public Long getDeptId() {
        return this.deptId;
    }

    public void setDeptId(Long deptId) {
        this.deptId = deptId;
    }

    public String getName() {
        return this.name;
    }

    public void setName(String name) {
        this.name = name;
    }

}
