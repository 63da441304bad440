sysbench = nil
error("a\27[31mred\rX")
