// lantern-bench-httpload: the storms' HTTP client (issue 28). It sends one POST per line of a
// bearer file, each line exactly once, over keep-alive connections with one request in flight
// each (as wrk does), checks every answer (status line, Content-Length, the body's outcome) and
// prints the summary line bench/wrk/bearers.lua prints, which wrkrun.cpp reads:
//
//   lantern-wrk answered=N fillers=0 non2xx=E seconds=S p50_ms=.. p99_ms=.. max_ms=.. errors=..
//               outcomes=name:count,...
//
// Why not wrk: on these two cores the client shares the CPU with lanternd serve and Redis, and
// wrk with the bearers script spends about 10 us of user CPU per request in LuaJIT (a request
// built per call, a header table and a body string per answer, and their garbage collection,
// which also stalls its connections) on top of the ~9 us of system calls any client makes.
// redis-benchmark, the baseline, is a C client; this is its HTTP counterpart: requests formatted
// once, answers parsed in place. wrk stays the client of the nginx reference (point 3).
//
//   lantern-bench-httpload -t THREADS -c CONNECTIONS -d SECONDSs --timeout SECONDSs [-s IGNORED] URL -- FILE [...]
//
// The arguments are wrk's (wrkArguments), so the benches run either; `-s` and what follows the
// file are accepted and ignored. Line i goes to thread i mod THREADS.
#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <string_view>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string &message)
{
    std::fprintf(stderr, "lantern-bench-httpload: %s\n", message.c_str());
    std::exit(2);
}

struct Target {
    sockaddr_in address{};
    std::string hostPort;
    std::string path;
};

Target parseUrl(const std::string &url)
{
    const std::string scheme = "http://";
    if (url.rfind(scheme, 0) != 0)
        fail("only http:// URLs: " + url);
    const std::string rest = url.substr(scheme.size());
    const size_t slash = rest.find('/');
    Target target;
    target.hostPort = rest.substr(0, slash);
    target.path = slash == std::string::npos ? "/" : rest.substr(slash);
    const size_t colon = target.hostPort.rfind(':');
    const std::string host = target.hostPort.substr(0, colon);
    const int port = colon == std::string::npos ? 80 : std::atoi(target.hostPort.c_str() + colon + 1);
    target.address.sin_family = AF_INET;
    target.address.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &target.address.sin_addr) != 1)
        fail("an IPv4 address is needed: " + host);
    return target;
}

/** What one thread saw. */
struct Tally {
    uint64_t answered = 0;
    uint64_t non2xx = 0;
    uint64_t errors = 0;  // requests lost with their connection, and answers later than --timeout
    uint64_t lost = 0;    // requests lost with their connection: never answered
    std::vector<uint32_t> latencyUs;
    std::map<std::string, uint64_t> outcomes;
    Clock::time_point first = Clock::time_point::max();
    Clock::time_point last = Clock::time_point::min();
};

struct Connection {
    int fd = -1;
    std::string in;                 // what arrived of the answer so far
    size_t request = SIZE_MAX;      // the slice's line in flight
    Clock::time_point sentAt;
};

/** The body's outcome, as bearers.lua names it: its "status" (a grab) or new/already (a check-in). */
std::string outcomeOf(std::string_view body)
{
    const std::string_view status = "\"status\":\"";
    if (const size_t at = body.find(status); at != std::string_view::npos) {
        const size_t from = at + status.size();
        const size_t to = body.find('"', from);
        if (to != std::string_view::npos)
            return std::string(body.substr(from, to - from));
    }
    const std::string_view already = "\"already\":";
    if (const size_t at = body.find(already); at != std::string_view::npos)
        return body.substr(at + already.size(), 4) == "true" ? "already" : "new";
    return "other";
}

/** The length of the first complete answer in `in` (0: not complete yet); its status, its body
    and whether the server closes the connection after it (Connection: close). */
size_t completeAnswer(const std::string &in, int &status, std::string_view &body, bool &closes)
{
    const size_t end = in.find("\r\n\r\n");
    if (end == std::string::npos)
        return 0;
    if (in.compare(0, 9, "HTTP/1.1 ") != 0 || in.size() < 12)
        fail("not an HTTP/1.1 answer: " + in.substr(0, 40));
    status = (in[9] - '0') * 100 + (in[10] - '0') * 10 + (in[11] - '0');
    size_t length = SIZE_MAX;
    closes = false;
    for (size_t line = in.find("\r\n") + 2; line < end;) {
        const size_t next = in.find("\r\n", line);
        if (next - line > 15 && strncasecmp(in.data() + line, "content-length:", 15) == 0) {
            size_t at = line + 15;
            while (in[at] == ' ')
                ++at;
            std::from_chars(in.data() + at, in.data() + next, length);
        } else if (next - line >= 17 && strncasecmp(in.data() + line, "connection: close", 17) == 0) {
            closes = true;
        }
        line = next + 2;
    }
    if (length == SIZE_MAX)
        fail("an answer without Content-Length: " + in.substr(0, end));
    if (in.size() < end + 4 + length)
        return 0;
    body = std::string_view(in).substr(end + 4, length);
    return end + 4 + length;
}

void noDelay(int fd)
{
    const int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
}

int connectTo(const Target &target)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, reinterpret_cast<const sockaddr *>(&target.address), sizeof target.address) != 0)
        fail(std::string("cannot connect: ") + std::strerror(errno));
    noDelay(fd);
    return fd;
}

/** One thread: its connections, each with one request in flight, until its slice is answered. */
void runThread(const Target &target, const std::vector<std::string> &requests, int connections, Clock::time_point deadline,
               std::chrono::milliseconds timeout, Tally &tally)
{
    tally.latencyUs.reserve(requests.size());
    const int epoll = epoll_create1(EPOLL_CLOEXEC);
    std::vector<Connection> open(static_cast<size_t>(std::max(connections, 1)));
    size_t next = 0;
    const auto send = [&](Connection &c) {
        if (next >= requests.size())
            return;
        c.request = next++;
        const std::string &request = requests[c.request];
        c.sentAt = Clock::now();
        tally.first = std::min(tally.first, c.sentAt);
        // A request is ~200 bytes: one send, whole, on an idle keep-alive connection.
        if (::send(c.fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size()))
            fail(std::string("send: ") + std::strerror(errno));
    };
    for (size_t i = 0; i < open.size(); ++i) {
        open[i].fd = connectTo(target);
        epoll_event event{EPOLLIN, {.u64 = i}};
        epoll_ctl(epoll, EPOLL_CTL_ADD, open[i].fd, &event);
        send(open[i]);
    }
    const auto reconnect = [&](Connection &c, uint64_t index) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, c.fd, nullptr);
        close(c.fd);
        c = Connection{};
        c.fd = connectTo(target);
        epoll_event event{EPOLLIN, {.u64 = index}};
        epoll_ctl(epoll, EPOLL_CTL_ADD, c.fd, &event);
        send(c);
    };
    std::vector<epoll_event> events(open.size());
    char buffer[16384];
    while (tally.answered + tally.lost < requests.size()) {
        const Clock::time_point now = Clock::now();
        if (now > deadline)
            break;
        const int ready = epoll_wait(epoll, events.data(), static_cast<int>(events.size()), 100);
        if (ready < 0 && errno != EINTR)
            fail(std::string("epoll_wait: ") + std::strerror(errno));
        for (int e = 0; e < ready; ++e) {
            Connection &c = open[events[e].data.u64];
            const ssize_t got = recv(c.fd, buffer, sizeof buffer, MSG_DONTWAIT);
            if (got <= 0) {
                if (got < 0 && (errno == EAGAIN || errno == EINTR))
                    continue;
                // Closed or broken: a request in flight is lost (an error); a new connection goes
                // on while the slice has requests left.
                if (c.request != SIZE_MAX) {
                    ++tally.errors;
                    ++tally.lost;
                }
                if (next < requests.size()) {
                    reconnect(c, events[e].data.u64);
                } else {
                    epoll_ctl(epoll, EPOLL_CTL_DEL, c.fd, nullptr);
                    close(c.fd);
                    c = Connection{};
                }
                continue;
            }
            c.in.append(buffer, static_cast<size_t>(got));
            int status = 0;
            std::string_view body;
            bool closes = false;
            while (const size_t used = completeAnswer(c.in, status, body, closes)) {
                const Clock::time_point at = Clock::now();
                if (c.request == SIZE_MAX)
                    fail("an answer to no request");
                const auto took = std::chrono::duration_cast<std::chrono::microseconds>(at - c.sentAt);
                if (took > timeout)
                    ++tally.errors;  // wrk's --timeout: too late counts as an error
                ++tally.answered;
                tally.non2xx += status < 200 || status > 299;
                tally.latencyUs.push_back(static_cast<uint32_t>(std::min<int64_t>(took.count(), UINT32_MAX)));
                ++tally.outcomes[outcomeOf(body)];
                tally.last = at;
                c.in.erase(0, used);
                c.request = SIZE_MAX;
                if (closes) {  // as wrk does: a new connection for the next request
                    reconnect(c, events[e].data.u64);
                    break;
                }
                send(c);
            }
        }
    }
    for (Connection &c : open) {
        if (c.fd >= 0)
            close(c.fd);
    }
    close(epoll);
}

double percentileMs(const std::vector<uint32_t> &sorted, double p)
{
    if (sorted.empty())
        return 0;
    const size_t at = std::min(sorted.size() - 1, static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size())));
    return sorted[at] / 1000.0;
}

int seconds(const std::string &text)
{
    return std::atoi(text.c_str());  // "900s" -> 900
}

} // namespace

int main(int argc, char **argv)
{
    int threads = 2;
    int connections = 50;
    int maxSeconds = 900;
    int timeoutSeconds = 10;
    std::string url;
    std::string file;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                fail("a value is missing after " + arg);
            return argv[++i];
        };
        if (arg == "-t")
            threads = std::atoi(value().c_str());
        else if (arg == "-c")
            connections = std::atoi(value().c_str());
        else if (arg == "-d")
            maxSeconds = seconds(value());
        else if (arg == "--timeout")
            timeoutSeconds = seconds(value());
        else if (arg == "-s")
            value();
        else if (arg == "--") {
            if (i + 1 >= argc)
                fail("the bearer file is missing after --");
            file = argv[i + 1];
            break;
        } else if (url.empty())
            url = arg;
        else
            fail("unexpected argument: " + arg);
    }
    if (url.empty() || file.empty() || threads < 1 || connections < threads)
        fail("usage: lantern-bench-httpload -t THREADS -c CONNECTIONS -d SECONDSs --timeout SECONDSs URL -- FILE");
    const Target target = parseUrl(url);

    // Every request formatted once, before the clock starts: line i to thread i mod THREADS.
    std::vector<std::vector<std::string>> slices(static_cast<size_t>(threads));
    std::ifstream bearers(file);
    if (!bearers)
        fail("cannot read " + file);
    std::string line;
    for (size_t n = 0; std::getline(bearers, line); ++n)
        slices[n % slices.size()].push_back("POST " + target.path + " HTTP/1.1\r\nHost: " + target.hostPort + "\r\nAuthorization: Bearer " + line
                                            + "\r\nContent-Length: 0\r\n\r\n");

    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(maxSeconds);
    std::vector<Tally> tallies(slices.size());
    std::vector<std::thread> running;
    for (size_t t = 0; t < slices.size(); ++t) {
        const int share = connections / threads + (static_cast<int>(t) < connections % threads ? 1 : 0);
        running.emplace_back(runThread, std::cref(target), std::cref(slices[t]), share, deadline, std::chrono::seconds(timeoutSeconds),
                             std::ref(tallies[t]));
    }
    for (std::thread &thread : running)
        thread.join();

    Tally all;
    std::vector<uint32_t> latencies;
    for (const Tally &tally : tallies) {
        all.answered += tally.answered;
        all.non2xx += tally.non2xx;
        all.errors += tally.errors;
        all.first = std::min(all.first, tally.first);
        all.last = std::max(all.last, tally.last);
        latencies.insert(latencies.end(), tally.latencyUs.begin(), tally.latencyUs.end());
        for (const auto &[name, count] : tally.outcomes)
            all.outcomes[name] += count;
    }
    std::sort(latencies.begin(), latencies.end());
    const double wall = all.answered > 0 ? std::chrono::duration<double>(all.last - all.first).count() : 0;
    std::string outcomes;
    for (const auto &[name, count] : all.outcomes)
        outcomes += (outcomes.empty() ? "" : ",") + name + ":" + std::to_string(count);
    std::printf("lantern-wrk answered=%llu fillers=0 non2xx=%llu seconds=%.6f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f errors=%llu outcomes=%s\n",
                static_cast<unsigned long long>(all.answered), static_cast<unsigned long long>(all.non2xx), wall, percentileMs(latencies, 50),
                percentileMs(latencies, 99), latencies.empty() ? 0.0 : latencies.back() / 1000.0, static_cast<unsigned long long>(all.errors),
                outcomes.c_str());
    return 0;
}
