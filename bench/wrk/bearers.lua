-- bearers.lua: wrk sends one POST to the URL per line of a bearer file, each line exactly once,
-- every thread its own slice, and stops as soon as every slice is answered (not after -d).
--
--   wrk -t T -c C -d LIMIT -s bench/wrk/bearers.lua URL -- FILE T DONE
--
-- FILE  one bearer per line (lantern-bench-bearers writes it); line i goes to thread (i-1) mod T,
--       so no two threads send the same line, and a thread sends its lines in file order.
-- T     wrk's -t again: a thread's init() cannot see how many threads there are.
-- DONE  a path for this run only (absent or empty): each thread appends one byte when its slice is
--       answered, and the one that sees T bytes sends wrk SIGINT, which ends the run at once (wrk
--       then prints its summary and calls done()). -d only bounds a run that goes wrong.
--
-- Once a thread has sent its whole slice, each of its connections sends GET /healthz (no bearer,
-- no write) until the slice's last answer arrives; these fillers are counted apart.
-- done() prints one line that lantern-bench-http-* reads:
--   lantern-wrk answered=N fillers=F non2xx=E seconds=S p50_ms=.. p99_ms=.. max_ms=.. errors=..
--               outcomes=name:count,...
-- where outcomes count the answers by their "status" field (grab) or "already" (check-in).

local ffi = require("ffi")
ffi.cdef [[
int kill(int pid, int sig);
int getpid(void);
]]
local SIGINT = 2

local threads = {}

function setup(thread)
    thread:set("id", #threads)
    threads[#threads + 1] = thread
end

function init(args)
    local path, count, done = args[1], tonumber(args[2]), args[3]
    if not path or not count or not done then
        error("usage: wrk ... -s bearers.lua URL -- FILE THREADS DONE")
    end
    slice, donePath, threadCount = {}, done, count
    local line = 0
    for bearer in io.lines(path) do
        if line % count == id then
            slice[#slice + 1] = bearer
        end
        line = line + 1
    end
    sent, answered, fillers, fillersAnswered, non2xx = 0, 0, 0, 0, 0
    outcomes = {}
    finished = false
    -- wrk calls thread 0's request() once before the run, to check what it returns: that call
    -- must not use up a line.
    probing = id == 0
    target = wrk.path
    filler = wrk.format("GET", "/healthz")
end

function request()
    if probing then
        probing = false
        return filler
    end
    if sent < #slice then
        sent = sent + 1
        return wrk.format("POST", target, {["Authorization"] = "Bearer " .. slice[sent], ["Content-Length"] = "0"})
    end
    fillers = fillers + 1
    return filler
end

local function outcome(body)
    local status = body:match('"status":"([%w_]+)"')
    if status then
        return status
    end
    local already = body:match('"already":(%a+)')
    if already then
        return already == "true" and "already" or "new"
    end
    return "other"
end

local function finish()
    finished = true
    wrk.thread:stop()
    local file = assert(io.open(donePath, "a"))
    file:write("x")
    file:flush()
    local size = file:seek("end")
    file:close()
    if size >= threadCount then
        ffi.C.kill(ffi.C.getpid(), SIGINT)
    end
end

function response(status, headers, body)
    if body:find('"redis_ms"', 1, true) then
        fillersAnswered = fillersAnswered + 1
    else
        answered = answered + 1
        if status < 200 or status > 299 then
            non2xx = non2xx + 1
        end
        local name = outcome(body)
        outcomes[name] = (outcomes[name] or 0) + 1
    end
    if not finished and answered >= #slice then
        finish()
    end
end

function done(summary, latency, requests)
    local answeredAll, fillersAll, non2xxAll, totals = 0, 0, 0, {}
    for _, thread in ipairs(threads) do
        answeredAll = answeredAll + thread:get("answered")
        fillersAll = fillersAll + thread:get("fillersAnswered")
        non2xxAll = non2xxAll + thread:get("non2xx")
        for name, count in pairs(thread:get("outcomes")) do
            totals[name] = (totals[name] or 0) + count
        end
    end
    local names = {}
    for name in pairs(totals) do
        names[#names + 1] = name
    end
    table.sort(names)
    local parts = {}
    for _, name in ipairs(names) do
        parts[#parts + 1] = name .. ":" .. totals[name]
    end
    local errors = summary.errors
    io.write(string.format(
        "lantern-wrk answered=%d fillers=%d non2xx=%d seconds=%.6f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f errors=%d outcomes=%s\n",
        answeredAll, fillersAll, non2xxAll, summary.duration / 1e6, latency:percentile(50) / 1e3,
        latency:percentile(99) / 1e3, latency.max / 1e3,
        errors.connect + errors.read + errors.write + errors.timeout, table.concat(parts, ",")))
end
