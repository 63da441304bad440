local function f(n) return f(n + 1) + 1 end
print(pcall(f, 1))
print(pcall(error, nil))
print(pcall(error, {code = 1}))
print(pcall(string.rep, "x", 1e6))
sysbench.hooks = 5
sysbench.cmdline.options = { [1] = {"x", 1} }
sysbench = 5
while true do end
