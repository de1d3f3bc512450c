// lantern-unit-exec: the seccomp part of a systemd unit's sandbox, for tests/packaging/unitsandbox.sh
// on machines where systemd is not PID 1 (so systemd-run cannot apply the unit's properties).
// It installs the filters systemd would (SystemCallFilter=, SystemCallErrorNumber=,
// SystemCallArchitectures=native, RestrictAddressFamilies=, MemoryDenyWriteExecute=,
// RestrictNamespaces=), sets UMask=, then executes the service's command line.
//
//   lantern-unit-exec --allow FILE [--errno NAME] [--families N,N,...] [--deny-write-execute]
//                     [--restrict-namespaces] [--umask OCTAL] -- PROGRAM [ARGS...]
//
// FILE lists the allowed system calls, one name a line (the unit's groups, expanded by
// `systemd-analyze syscall-filter`); names this architecture does not have are skipped, as
// systemd does. The rules follow systemd 252's src/shared/seccomp-util.c: an allow list whose
// default action is the errno, and a second filter (default allow) for the argument checks.
#include <seccomp.h>

#include <algorithm>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sched.h>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

struct ContextDeleter {
    void operator()(scmp_filter_ctx context) const { seccomp_release(context); }
};
using Filter = std::unique_ptr<void, ContextDeleter>;

[[noreturn]] void die(const std::string &message)
{
    std::fprintf(stderr, "lantern-unit-exec: %s\n", message.c_str());
    std::exit(127);
}

void check(int rc, const std::string &what)
{
    if (rc < 0)
        die(what + ": " + std::strerror(-rc));
}

int errnoNamed(const std::string &name)
{
    static const std::pair<const char *, int> known[] = {{"EPERM", EPERM}, {"EACCES", EACCES}, {"ENOSYS", ENOSYS}};
    for (const auto &[text, value] : known) {
        if (name == text)
            return value;
    }
    die("unknown errno " + name);
}

struct Options {
    std::string allowFile;
    int error = EPERM;
    std::vector<int> families;  // empty: every family
    bool denyWriteExecute = false;
    bool restrictNamespaces = false;
    int umask = -1;
    char **command = nullptr;
};

Options parse(int argc, char **argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                die(argument + " needs a value");
            return argv[++i];
        };
        if (argument == "--") {
            options.command = argv + i + 1;
            break;
        }
        if (argument == "--allow")
            options.allowFile = value();
        else if (argument == "--errno")
            options.error = errnoNamed(value());
        else if (argument == "--families") {
            const std::string list = value();
            for (size_t start = 0; start < list.size();) {
                const size_t comma = std::min(list.find(',', start), list.size());
                options.families.push_back(std::stoi(list.substr(start, comma - start)));
                start = comma + 1;
            }
        } else if (argument == "--deny-write-execute")
            options.denyWriteExecute = true;
        else if (argument == "--restrict-namespaces")
            options.restrictNamespaces = true;
        else if (argument == "--umask")
            options.umask = std::stoi(value(), nullptr, 8);
        else
            die("unknown option " + argument);
    }
    if (!options.command || !options.command[0])
        die("no command after --");
    return options;
}

/** SystemCallFilter= as an allow list: every other system call fails with the errno. */
Filter allowList(const Options &options)
{
    Filter filter(seccomp_init(SCMP_ACT_ERRNO(static_cast<uint32_t>(options.error))));
    if (!filter)
        die("seccomp_init failed");
    std::ifstream names(options.allowFile);
    if (!names)
        die("cannot read " + options.allowFile);
    int allowed = 0;
    for (std::string name; std::getline(names, name);) {
        if (name.empty())
            continue;
        const int number = seccomp_syscall_resolve_name(name.c_str());
        if (number == __NR_SCMP_ERROR)
            continue;  // not a system call of this architecture
        check(seccomp_rule_add(filter.get(), SCMP_ACT_ALLOW, number, 0), "allow " + name);
        ++allowed;
    }
    if (allowed == 0)
        die(options.allowFile + " allows no system call");
    return filter;
}

void addErrno(scmp_filter_ctx filter, int error, const char *name, const scmp_arg_cmp &condition)
{
    const int number = seccomp_syscall_resolve_name(name);
    if (number != __NR_SCMP_ERROR)
        check(seccomp_rule_add(filter, SCMP_ACT_ERRNO(static_cast<uint32_t>(error)), number, 1, condition), name);
}

/** The argument checks, each as systemd words it: a call they refuse fails, others pass. */
Filter argumentChecks(const Options &options)
{
    Filter filter(seccomp_init(SCMP_ACT_ALLOW));
    if (!filter)
        die("seccomp_init failed");
    if (!options.families.empty()) {
        // RestrictAddressFamilies=: socket() of another family fails with EAFNOSUPPORT.
        int first = options.families.front(), last = first;
        for (int family : options.families) {
            first = std::min(first, family);
            last = std::max(last, family);
        }
        addErrno(filter.get(), EAFNOSUPPORT, "socket", SCMP_A0(SCMP_CMP_LT, static_cast<scmp_datum_t>(first)));
        addErrno(filter.get(), EAFNOSUPPORT, "socket", SCMP_A0(SCMP_CMP_GT, static_cast<scmp_datum_t>(last)));
        for (int family = first + 1; family < last; ++family) {
            if (std::find(options.families.begin(), options.families.end(), family) == options.families.end())
                addErrno(filter.get(), EAFNOSUPPORT, "socket", SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family)));
        }
    }
    if (options.denyWriteExecute) {
        // MemoryDenyWriteExecute=: no mapping both writable and executable, none made executable later.
        const scmp_datum_t writeExecute = PROT_WRITE | PROT_EXEC;
        addErrno(filter.get(), EPERM, "mmap", SCMP_A2(SCMP_CMP_MASKED_EQ, writeExecute, writeExecute));
        addErrno(filter.get(), EPERM, "mprotect", SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
        addErrno(filter.get(), EPERM, "pkey_mprotect", SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
        addErrno(filter.get(), EPERM, "shmat", SCMP_A2(SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC));
    }
    if (options.restrictNamespaces) {
        // RestrictNamespaces=yes: no new namespace of any kind; clone3 fails with ENOSYS, as systemd
        // makes it (its flags are in memory a filter cannot read), so that glibc falls back to clone.
        const scmp_datum_t kinds[] = {CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER, CLONE_NEWUTS};
        for (scmp_datum_t kind : kinds) {
            addErrno(filter.get(), EPERM, "unshare", SCMP_A0(SCMP_CMP_MASKED_EQ, kind, kind));
            addErrno(filter.get(), EPERM, "clone", SCMP_A0(SCMP_CMP_MASKED_EQ, kind, kind));
            addErrno(filter.get(), EPERM, "setns", SCMP_A1(SCMP_CMP_MASKED_EQ, kind, kind));
        }
        addErrno(filter.get(), EPERM, "setns", SCMP_A1(SCMP_CMP_EQ, 0));
        const int clone3 = seccomp_syscall_resolve_name("clone3");
        if (clone3 != __NR_SCMP_ERROR)
            check(seccomp_rule_add(filter.get(), SCMP_ACT_ERRNO(ENOSYS), clone3, 0), "clone3");
    }
    return filter;
}

} // namespace

int main(int argc, char **argv)
{
    const Options options = parse(argc, argv);
    if (options.umask >= 0)
        ::umask(static_cast<mode_t>(options.umask));
    // As systemd does for a service that is not root: the filters need no_new_privs.
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        die(std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno));
    Filter checks = argumentChecks(options);
    check(seccomp_load(checks.get()), "load the argument checks");
    if (!options.allowFile.empty()) {
        Filter allowed = allowList(options);
        check(seccomp_load(allowed.get()), "load the system call filter");
    }
    execvp(options.command[0], options.command);
    die(std::string("cannot execute ") + options.command[0] + ": " + std::strerror(errno));
}
