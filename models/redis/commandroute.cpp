#include "redis/commandroute.h"

#include <QHash>

#include <algorithm>

namespace lantern {

namespace {

enum class KeyShape {
    None,           // keyless
    All,            // every argument after the name (DEL, EXISTS, MGET, ...)
    FirstTwo,       // source and destination (LMOVE, COPY, RENAME, ...)
    AllButLast,     // keys then a timeout (BLPOP, BRPOP, ...)
    EveryOther,     // key value key value (MSET, MSETNX)
    FromSecond,     // BITOP op dest key...
    NumKeys,        // name script/sha numkeys key... (EVAL, EVALSHA, FCALL)
    DestNumKeys,    // dest numkeys key... (ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE)
    SecondArg,      // subcommand key (OBJECT, MEMORY USAGE)
    Unlisted,       // NAME key ...: the common form
};

const QHash<QByteArray, KeyShape> &shapes()
{
    static const QHash<QByteArray, KeyShape> table{
            {"PING", KeyShape::None},        {"ECHO", KeyShape::None},        {"INFO", KeyShape::None},
            {"TIME", KeyShape::None},        {"CONFIG", KeyShape::None},      {"SLOWLOG", KeyShape::None},
            {"COMMAND", KeyShape::None},     {"CLIENT", KeyShape::None},      {"CLUSTER", KeyShape::None},
            {"ROLE", KeyShape::None},        {"LASTSAVE", KeyShape::None},    {"LATENCY", KeyShape::None},
            {"ACL", KeyShape::None},         {"HELLO", KeyShape::None},       {"AUTH", KeyShape::None},
            {"READONLY", KeyShape::None},    {"READWRITE", KeyShape::None},   {"ASKING", KeyShape::None},
            {"MULTI", KeyShape::None},       {"EXEC", KeyShape::None},        {"DISCARD", KeyShape::None},
            {"UNWATCH", KeyShape::None},     {"DEBUG", KeyShape::None},       {"SCRIPT", KeyShape::None},
            {"FLUSHALL", KeyShape::None},    {"FLUSHDB", KeyShape::None},     {"DBSIZE", KeyShape::None},
            {"SAVE", KeyShape::None},        {"BGSAVE", KeyShape::None},      {"BGREWRITEAOF", KeyShape::None},
            {"FUNCTION", KeyShape::None},    {"SCAN", KeyShape::None},        {"KEYS", KeyShape::None},
            {"RANDOMKEY", KeyShape::None},   {"WAIT", KeyShape::None},        {"SELECT", KeyShape::None},
            {"SWAPDB", KeyShape::None},      {"SHUTDOWN", KeyShape::None},    {"LOLWUT", KeyShape::None},
            {"DEL", KeyShape::All},          {"UNLINK", KeyShape::All},       {"EXISTS", KeyShape::All},
            {"TOUCH", KeyShape::All},        {"MGET", KeyShape::All},         {"WATCH", KeyShape::All},
            {"SINTER", KeyShape::All},       {"SUNION", KeyShape::All},       {"SDIFF", KeyShape::All},
            {"SINTERSTORE", KeyShape::All},  {"SUNIONSTORE", KeyShape::All},  {"SDIFFSTORE", KeyShape::All},
            {"PFCOUNT", KeyShape::All},      {"PFMERGE", KeyShape::All},
            {"LMOVE", KeyShape::FirstTwo},   {"BLMOVE", KeyShape::FirstTwo},  {"RPOPLPUSH", KeyShape::FirstTwo},
            {"BRPOPLPUSH", KeyShape::FirstTwo}, {"COPY", KeyShape::FirstTwo}, {"RENAME", KeyShape::FirstTwo},
            {"RENAMENX", KeyShape::FirstTwo}, {"SMOVE", KeyShape::FirstTwo},  {"LCS", KeyShape::FirstTwo},
            {"BLPOP", KeyShape::AllButLast}, {"BRPOP", KeyShape::AllButLast}, {"BZPOPMIN", KeyShape::AllButLast},
            {"BZPOPMAX", KeyShape::AllButLast},
            {"MSET", KeyShape::EveryOther},  {"MSETNX", KeyShape::EveryOther},
            {"BITOP", KeyShape::FromSecond},
            {"EVAL", KeyShape::NumKeys},     {"EVALSHA", KeyShape::NumKeys},  {"EVAL_RO", KeyShape::NumKeys},
            {"EVALSHA_RO", KeyShape::NumKeys}, {"FCALL", KeyShape::NumKeys},  {"FCALL_RO", KeyShape::NumKeys},
            {"ZUNIONSTORE", KeyShape::DestNumKeys}, {"ZINTERSTORE", KeyShape::DestNumKeys},
            {"ZDIFFSTORE", KeyShape::DestNumKeys},
            {"OBJECT", KeyShape::SecondArg}, {"MEMORY", KeyShape::SecondArg},
    };
    return table;
}

/** args[i] in upper case; without a copy when it is already (Lantern writes its commands so). */
QByteArray upper(const QByteArrayList &args, qsizetype i)
{
    if (i >= args.size())
        return {};
    const QByteArray &word = args.at(i);
    if (std::none_of(word.cbegin(), word.cend(), [](char c) { return c >= 'a' && c <= 'z'; }))
        return word;
    return word.toUpper();
}

} // namespace

CommandRoute CommandRoute::of(const QByteArrayList &args)
{
    CommandRoute route;
    if (args.isEmpty())
        return route;
    const QByteArray name = upper(args, 0);
    const QByteArray sub = upper(args, 1);

    // Keyless commands whose answer is per node.
    if (name == "SCAN" || name == "KEYS" || name == "RANDOMKEY" || name == "WAIT" || name == "SELECT" || name == "SWAPDB") {
        route.kind = Kind::NotOnCluster;
        return route;
    }
    if ((name == "SCRIPT" && (sub == "LOAD" || sub == "FLUSH")) || name == "FLUSHALL" || name == "FLUSHDB"
        || (name == "CONFIG" && (sub == "SET" || sub == "RESETSTAT")) || (name == "SLOWLOG" && sub == "RESET")
        || (name == "FUNCTION" && (sub == "LOAD" || sub == "DELETE" || sub == "FLUSH"))) {
        route.kind = Kind::EveryMaster;
        return route;
    }
    if (name == "DBSIZE") {
        route.kind = Kind::EveryMaster;
        route.merge = Merge::Sum;
        return route;
    }

    const KeyShape shape = shapes().value(name, KeyShape::Unlisted);
    QByteArrayList keys;
    switch (shape) {
    case KeyShape::None:
        break;
    case KeyShape::All:
        keys = args.mid(1);
        break;
    case KeyShape::FirstTwo:
        keys = args.mid(1, 2);
        break;
    case KeyShape::AllButLast:
        keys = args.mid(1, args.size() - 2);
        break;
    case KeyShape::EveryOther:
        for (qsizetype i = 1; i < args.size(); i += 2)
            keys << args.at(i);
        break;
    case KeyShape::FromSecond:
        keys = args.mid(2);
        break;
    case KeyShape::NumKeys: {
        bool ok = false;
        const qsizetype count = args.value(2).toLongLong(&ok);
        if (ok && count > 0)
            keys = args.mid(3, count);
        break;
    }
    case KeyShape::DestNumKeys: {
        bool ok = false;
        const qsizetype count = args.value(2).toLongLong(&ok);
        keys << args.value(1);
        if (ok && count > 0)
            keys << args.mid(3, count);
        break;
    }
    case KeyShape::SecondArg:
        if (args.size() > 2 && (name != "MEMORY" || sub == "USAGE") && (name != "OBJECT" || sub != "HELP"))
            keys << args.at(2);
        break;
    case KeyShape::Unlisted:
        if (args.size() > 1)
            keys << args.at(1);
        break;
    }
    if (!keys.isEmpty()) {
        route.kind = Kind::Keys;
        route.keys = keys;
    }
    return route;
}

} // namespace lantern
