<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>lantern::CalendarModel</name>
        <message>
            <source>%1: %2</source>
            <translation>%1：%2</translation>
        </message>
        <message>
            <source>Signed</source>
            <translation>已签到</translation>
        </message>
        <message>
            <source>Make-up</source>
            <translation>补签</translation>
        </message>
        <message>
            <source>Missed</source>
            <translation>漏签</translation>
        </message>
        <message>
            <source>Today, not signed yet</source>
            <translation>今天，尚未签到</translation>
        </message>
        <message>
            <source>Future</source>
            <translation>未到</translation>
        </message>
    </context>
    <context>
        <name>lantern::Sandbox</name>
        <message>
            <source>The sandbox Redis stopped: %1</source>
            <translation>沙盒 Redis 已停止：%1</translation>
        </message>
        <message>
            <source>Starting a private Redis server…</source>
            <translation>正在启动私有 Redis 服务器…</translation>
        </message>
        <message>
            <source>Seeding demo users and their check-in history…</source>
            <translation>正在生成演示用户及其签到记录…</translation>
        </message>
    </context>
    <context>
        <name>lantern::SandboxRedis</name>
        <message>
            <source>redis-server was not found. Install the redis-server package, or start the console with --redis URL --db URL to use running servers.</source>
            <translation>未找到 redis-server。请安装 redis-server 软件包，或者用 --redis URL --db URL 启动控制台，连接已在运行的服务器。</translation>
        </message>
        <message>
            <source>No free TCP port on 127.0.0.1.</source>
            <translation>127.0.0.1 上没有可用的 TCP 端口。</translation>
        </message>
        <message numerus="yes">
            <source>redis-server did not answer within %n second(s).</source>
            <translation>
                <numerusform>redis-server 在 %n 秒内没有响应。</numerusform>
            </translation>
        </message>
        <message>
            <source>redis-server crashed.</source>
            <translation>redis-server 崩溃了。</translation>
        </message>
        <message>
            <source>redis-server exited with code %1.</source>
            <translation>redis-server 已退出，退出码为 %1。</translation>
        </message>
        <message>
            <source>The sandbox Redis could not be started: %1</source>
            <translation>无法启动沙盒 Redis：%1</translation>
        </message>
    </context>
    <context>
        <name>lantern::SandboxWorker</name>
        <message>
            <source>The sandbox could not be prepared.</source>
            <translation>无法准备沙盒环境。</translation>
        </message>
    </context>
    <context>
        <name>lantern::UserLookupService</name>
        <message>
            <source>“%1” is neither a user id nor a user token.</source>
            <translation>“%1”既不是用户 ID，也不是用户令牌。</translation>
        </message>
        <message>
            <source>Only days of the current month can be made up.</source>
            <translation>只能为本月的日期补签。</translation>
        </message>
        <message numerus="yes">
            <source>Only the last %n day(s) can be made up.</source>
            <translation>
                <numerusform>只能为最近 %n 天内的日期补签。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>This month's quota of %n make-up(s) is used up.</source>
            <translation>
                <numerusform>本月 %n 次补签额度已用完。</numerusform>
            </translation>
        </message>
        <message>
            <source>This make-up cannot be granted.</source>
            <translation>无法进行这次补签。</translation>
        </message>
        <message>
            <source>Redis at %1 does not answer. Check that it is running, then try again.</source>
            <translation>%1 上的 Redis 没有响应。请确认它正在运行，然后重试。</translation>
        </message>
        <message>
            <source>The database at %1 cannot be reached. Check that it is running, then try again.</source>
            <translation>无法连接数据库 %1。请确认它正在运行，然后重试。</translation>
        </message>
        <message>
            <source>The database refused the request.</source>
            <translation>数据库拒绝了该请求。</translation>
        </message>
        <message>
            <source>Redis refused the request.</source>
            <translation>Redis 拒绝了该请求。</translation>
        </message>
        <message>
            <source>Something went wrong while talking to Redis or the database.</source>
            <translation>与 Redis 或数据库通信时出错。</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::CalendarDelegate</name>
        <message>
            <source>make-up</source>
            <comment>calendar tile caption</comment>
            <translation>补签</translation>
        </message>
        <message>
            <source>today</source>
            <comment>calendar tile caption</comment>
            <translation>今天</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::CalendarLegend</name>
        <message>
            <source>Today</source>
            <translation>今天</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::ConsoleOptions</name>
        <message>
            <source>Redis server, redis://[user:password@]host:port[/db].</source>
            <translation>Redis 服务器，redis://[user:password@]host:port[/db]。</translation>
        </message>
        <message>
            <source>SQL database, mysql://user:password@host:port/name or sqlite:///path.db.</source>
            <translation>SQL 数据库，mysql://user:password@host:port/name 或 sqlite:///path.db。</translation>
        </message>
        <message>
            <source>Treat this day (YYYY-MM-DD) as today.</source>
            <translation>把这一天（YYYY-MM-DD）当作今天。</translation>
        </message>
        <message>
            <source>Time zone of the business day, e.g. Asia/Shanghai.</source>
            <translation>业务日使用的时区，例如 Asia/Shanghai。</translation>
        </message>
        <message>
            <source>Redis key prefix (default lt:).</source>
            <translation>Redis 键前缀（默认 lt:）。</translation>
        </message>
        <message>
            <source>Number of check-in key shards (default 16).</source>
            <translation>签到键的分片数（默认 16）。</translation>
        </message>
        <message>
            <source>monthly or rolling.</source>
            <translation>monthly（按月）或 rolling（跨月滚动）。</translation>
        </message>
        <message>
            <source>Points per streak day, e.g. 10,20,30,50.</source>
            <translation>连续签到第 1、2、3…天的积分，例如 10,20,30,50。</translation>
        </message>
        <message>
            <source>Make-up window in days (0: the current month).</source>
            <translation>补签窗口天数（0 表示仅限本月）。</translation>
        </message>
        <message>
            <source>Make-ups allowed per month.</source>
            <translation>每月允许的补签次数。</translation>
        </message>
        <message>
            <source>Whether a make-up grants points (true or false).</source>
            <translation>补签是否发放积分（true 或 false）。</translation>
        </message>
        <message>
            <source>Salt of the public user tokens.</source>
            <translation>公开用户令牌使用的盐值。</translation>
        </message>
        <message>
            <source>Named connection profile.</source>
            <translation>已命名的连接配置。</translation>
        </message>
        <message>
            <source>Profile file to read settings from.</source>
            <translation>从中读取设置的配置文件。</translation>
        </message>
        <message>
            <source>Lantern Console: look users up, read their check-in calendar and grant make-ups.
Without --redis and --db it starts a sandbox: a private Redis, an SQLite file and demo data.</source>
            <translation>Lantern 控制台：查找用户、查看签到日历并为用户补签。
未指定 --redis 和 --db 时启动沙盒：私有 Redis、SQLite 文件和演示数据。</translation>
        </message>
        <message>
            <source>Use the embedded sandbox (the default without --redis and --db).</source>
            <translation>使用内置沙盒（未指定 --redis 和 --db 时的默认方式）。</translation>
        </message>
        <message>
            <source>Where the sandbox keeps its files.</source>
            <translation>沙盒存放文件的目录。</translation>
        </message>
        <message>
            <source>dir</source>
            <translation>目录</translation>
        </message>
        <message>
            <source>Render a view to this PNG file and exit.</source>
            <translation>把视图渲染到这个 PNG 文件，然后退出。</translation>
        </message>
        <message>
            <source>file</source>
            <translation>文件</translation>
        </message>
        <message>
            <source>The view to render: users.</source>
            <translation>要渲染的视图：users。</translation>
        </message>
        <message>
            <source>name</source>
            <translation>名称</translation>
        </message>
        <message>
            <source>Show this user (a uid or a token).</source>
            <translation>显示这个用户（uid 或令牌）。</translation>
        </message>
        <message>
            <source>uid</source>
            <translation>uid</translation>
        </message>
        <message>
            <source>Show this month (YYYY-MM).</source>
            <translation>显示这个月份（YYYY-MM）。</translation>
        </message>
        <message>
            <source>month</source>
            <translation>月份</translation>
        </message>
        <message>
            <source>Interface language, e.g. zh_CN or en.</source>
            <translation>界面语言，例如 zh_CN 或 en。</translation>
        </message>
        <message>
            <source>language</source>
            <translation>语言</translation>
        </message>
        <message>
            <source>value</source>
            <translation>值</translation>
        </message>
        <message>
            <source>--sandbox cannot be combined with --redis or --db</source>
            <translation>--sandbox 不能与 --redis 或 --db 同时使用</translation>
        </message>
        <message>
            <source>--db needs --redis as well (or use --sandbox)</source>
            <translation>--db 需要同时指定 --redis（或者使用 --sandbox）</translation>
        </message>
        <message>
            <source>unknown view '%1': the console has one view, users</source>
            <translation>未知视图“%1”：控制台目前只有 users 一个视图</translation>
        </message>
        <message>
            <source>Select this day (YYYY-MM-DD) in the calendar.</source>
            <translation>在日历中选中这一天（YYYY-MM-DD）。</translation>
        </message>
        <message>
            <source>date</source>
            <translation>日期</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::ConsoleSession</name>
        <message numerus="yes">
            <source>Worker: %n check-in(s) persisted</source>
            <translation>
                <numerusform>工作线程：已持久化 %n 条签到</numerusform>
            </translation>
        </message>
        <message>
            <source>Demo users: %1</source>
            <translation>演示用户：%1</translation>
        </message>
        <message>
            <source>Sandbox stopped</source>
            <translation>沙盒已停止</translation>
        </message>
        <message numerus="yes">
            <source>Worker: %n new check-in(s) persisted</source>
            <translation>
                <numerusform>工作线程：新持久化 %n 条签到</numerusform>
            </translation>
        </message>
        <message>
            <source>Worker: retrying</source>
            <translation>工作线程：正在重试</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::MainWindow</name>
        <message>
            <source>Lantern Console — Users</source>
            <translation>Lantern 控制台 — 用户</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>退出(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>帮助(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;About Lantern</source>
            <translation>关于 Lantern(&amp;A)</translation>
        </message>
        <message>
            <source>About Lantern</source>
            <translation>关于 Lantern</translation>
        </message>
        <message>
            <source>&lt;b&gt;Lantern Console&lt;/b&gt; %1&lt;br&gt;Daily check-in and red-envelope campaigns on Redis and SQL.</source>
            <translation>&lt;b&gt;Lantern 控制台&lt;/b&gt; %1&lt;br&gt;基于 Redis 与 SQL 的每日签到和红包活动。</translation>
        </message>
        <message>
            <source>Not connected yet</source>
            <translation>尚未连接</translation>
        </message>
        <message>
            <source>Sandbox</source>
            <translation>沙盒</translation>
        </message>
        <message>
            <source>Servers</source>
            <translation>服务器</translation>
        </message>
        <message>
            <source>A private Redis and an SQLite file with demo data; nothing here reaches production.</source>
            <translation>私有 Redis 加上带演示数据的 SQLite 文件；这里的任何操作都不会影响生产环境。</translation>
        </message>
        <message>
            <source>Connected to the Redis and SQL servers given on the command line.</source>
            <translation>已连接到命令行指定的 Redis 和 SQL 服务器。</translation>
        </message>
        <message>
            <source>Redis %1 · SQL %2</source>
            <translation>Redis %1 · SQL %2</translation>
        </message>
        <message>
            <source>Redis: %1
SQL: %2</source>
            <translation>Redis：%1
SQL：%2</translation>
        </message>
        <message>
            <source>Last refresh %1</source>
            <translation>最近刷新 %1</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::MakeupDialog</name>
        <message>
            <source>Grant a make-up check-in</source>
            <translation>补签</translation>
        </message>
        <message>
            <source>Sign &lt;b&gt;%1&lt;/b&gt; for user &lt;b&gt;%2&lt;/b&gt; as a make-up. It restores the streak; it is recorded in the audit log with your name and reason.</source>
            <translation>为用户 &lt;b&gt;%2&lt;/b&gt; 补签 &lt;b&gt;%1&lt;/b&gt;。补签会恢复连续签到，并连同你的姓名和原因记入审计日志。</translation>
        </message>
        <message>
            <source>Why is it granted? For example: the app was down that evening.</source>
            <translation>为什么补签？例如：当天晚上应用无法使用。</translation>
        </message>
        <message>
            <source>Your name</source>
            <translation>你的姓名</translation>
        </message>
        <message>
            <source>&amp;Reason:</source>
            <translation>原因(&amp;R)：</translation>
        </message>
        <message>
            <source>&amp;Operator:</source>
            <translation>操作人(&amp;O)：</translation>
        </message>
        <message>
            <source>Grant make-up</source>
            <translation>确认补签</translation>
        </message>
        <message numerus="yes">
            <source>At most %n characters.</source>
            <translation>
                <numerusform>最多 %n 个字符。</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::MessageBanner</name>
        <message>
            <source>Details</source>
            <translation>详情</translation>
        </message>
        <message>
            <source>Close this message</source>
            <translation>关闭此消息</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::UserSummaryPanel</name>
        <message>
            <source>Make-up…</source>
            <translation>补签…</translation>
        </message>
        <message>
            <source>Current streak</source>
            <translation>当前连续签到</translation>
        </message>
        <message>
            <source>Points balance</source>
            <translation>积分余额</translation>
        </message>
        <message>
            <source>Grant a make-up check-in for the selected day</source>
            <translation>为选中的日期补签</translation>
        </message>
        <message>
            <source>User %1</source>
            <translation>用户 %1</translation>
        </message>
        <message>
            <source>Token: %1</source>
            <translation>令牌：%1</translation>
        </message>
        <message numerus="yes">
            <source>day(s)</source>
            <extracomment>The unit after a number of days, as in "12 days"; the number itself is shown bigger.</extracomment>
            <translation>
                <numerusform>天</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>point(s)</source>
            <extracomment>The unit after a points balance, as in "3,430 points".</extracomment>
            <translation>
                <numerusform>积分</numerusform>
            </translation>
        </message>
        <message>
            <source>No user shown</source>
            <translation>未显示用户</translation>
        </message>
        <message>
            <source>Search for a user id or token.</source>
            <translation>请输入用户 ID 或令牌查找。</translation>
        </message>
        <message>
            <source>Longest run in the month</source>
            <translation>当月最长连续</translation>
        </message>
        <message>
            <source>Days signed in the month</source>
            <translation>当月签到天数</translation>
        </message>
        <message>
            <source>Make-ups in the month: %1 of %2</source>
            <translation>当月已补签 %1 次，上限 %2 次</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::UsersView</name>
        <message>
            <source>Look up</source>
            <translation>查找</translation>
        </message>
        <message>
            <source>This month</source>
            <translation>本月</translation>
        </message>
        <message>
            <source>User id or token, e.g. 10001</source>
            <translation>用户 ID 或令牌，例如 10001</translation>
        </message>
        <message>
            <source>Read the shown month again (F5)</source>
            <translation>重新读取当前月份（F5）</translation>
        </message>
        <message>
            <source>Waiting for Redis and the database…</source>
            <translation>正在等待 Redis 和数据库…</translation>
        </message>
        <message>
            <source>Previous month (Ctrl+Page Up)</source>
            <translation>上个月（Ctrl+Page Up）</translation>
        </message>
        <message>
            <source>Next month (Ctrl+Page Down)</source>
            <translation>下个月（Ctrl+Page Down）</translation>
        </message>
        <message>
            <source>Make-up granted for %1.</source>
            <translation>已为 %1 补签。</translation>
        </message>
        <message>
            <source>MMMM yyyy</source>
            <extracomment>How the month above the calendar is written, as a QDate format (e.g. "yyyy年M月").</extracomment>
            <translation>yyyy年M月</translation>
        </message>
        <message>
            <source>Grant a make-up for %1.</source>
            <translation>可以为 %1 补签。</translation>
        </message>
        <message>
            <source>Select a missed day in the calendar to grant a make-up.</source>
            <translation>在日历中选择一个漏签的日期，即可为其补签。</translation>
        </message>
        <message>
            <source>Make-ups are for past days only.</source>
            <translation>只能为过去的日期补签。</translation>
        </message>
        <message>
            <source>This day is already signed.</source>
            <translation>这一天已经签到。</translation>
        </message>
        <message>
            <source>Only days of the current month can be made up.</source>
            <translation>只能为本月的日期补签。</translation>
        </message>
        <message numerus="yes">
            <source>Only the last %n day(s) can be made up.</source>
            <translation>
                <numerusform>只能为最近 %n 天内的日期补签。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>This month's quota of %n make-up(s) is used up.</source>
            <translation>
                <numerusform>本月 %n 次补签额度已用完。</numerusform>
            </translation>
        </message>
        <message>
            <source>Previous month</source>
            <translation>上个月</translation>
        </message>
        <message>
            <source>Next month</source>
            <translation>下个月</translation>
        </message>
        <message>
            <source>%1 had been signed meanwhile; nothing changed.</source>
            <translation>%1 在此期间已经签到，没有任何改动。</translation>
        </message>
    </context>
</TS>
