<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
    <context>
        <name>lantern::CalendarModel</name>
        <message>
            <source>%1: %2</source>
            <translation>%1: %2</translation>
        </message>
        <message>
            <source>Signed</source>
            <translation>Signed</translation>
        </message>
        <message>
            <source>Make-up</source>
            <translation>Make-up</translation>
        </message>
        <message>
            <source>Missed</source>
            <translation>Missed</translation>
        </message>
        <message>
            <source>Today, not signed yet</source>
            <translation>Today, not signed yet</translation>
        </message>
        <message>
            <source>Future</source>
            <translation>Future</translation>
        </message>
    </context>
    <context>
        <name>lantern::Sandbox</name>
        <message>
            <source>The sandbox Redis stopped: %1</source>
            <translation>The sandbox Redis stopped: %1</translation>
        </message>
        <message>
            <source>Starting a private Redis server…</source>
            <translation>Starting a private Redis server…</translation>
        </message>
        <message>
            <source>Seeding demo users and their check-in history…</source>
            <translation>Seeding demo users and their check-in history…</translation>
        </message>
    </context>
    <context>
        <name>lantern::SandboxRedis</name>
        <message>
            <source>redis-server was not found. Install the redis-server package, or start the console with --redis URL --db URL to use running servers.</source>
            <translation>redis-server was not found. Install the redis-server package, or start the console with --redis URL --db URL to use running servers.</translation>
        </message>
        <message>
            <source>No free TCP port on 127.0.0.1.</source>
            <translation>No free TCP port on 127.0.0.1.</translation>
        </message>
        <message numerus="yes">
            <source>redis-server did not answer within %n second(s).</source>
            <translation>
                <numerusform>redis-server did not answer within %n second.</numerusform>
                <numerusform>redis-server did not answer within %n seconds.</numerusform>
            </translation>
        </message>
        <message>
            <source>redis-server crashed.</source>
            <translation>redis-server crashed.</translation>
        </message>
        <message>
            <source>redis-server exited with code %1.</source>
            <translation>redis-server exited with code %1.</translation>
        </message>
        <message>
            <source>The sandbox Redis could not be started: %1</source>
            <translation>The sandbox Redis could not be started: %1</translation>
        </message>
    </context>
    <context>
        <name>lantern::SandboxWorker</name>
        <message>
            <source>The sandbox could not be prepared.</source>
            <translation>The sandbox could not be prepared.</translation>
        </message>
    </context>
    <context>
        <name>lantern::UserLookupService</name>
        <message>
            <source>“%1” is neither a user id nor a user token.</source>
            <translation>“%1” is neither a user id nor a user token.</translation>
        </message>
        <message>
            <source>Only days of the current month can be made up.</source>
            <translation>Only days of the current month can be made up.</translation>
        </message>
        <message numerus="yes">
            <source>Only the last %n day(s) can be made up.</source>
            <translation>
                <numerusform>Only yesterday can be made up.</numerusform>
                <numerusform>Only the last %n days can be made up.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>This month's quota of %n make-up(s) is used up.</source>
            <translation>
                <numerusform>This month's quota of %n make-up is used up.</numerusform>
                <numerusform>This month's quota of %n make-ups is used up.</numerusform>
            </translation>
        </message>
        <message>
            <source>This make-up cannot be granted.</source>
            <translation>This make-up cannot be granted.</translation>
        </message>
        <message>
            <source>Redis at %1 does not answer. Check that it is running, then try again.</source>
            <translation>Redis at %1 does not answer. Check that it is running, then try again.</translation>
        </message>
        <message>
            <source>The database at %1 cannot be reached. Check that it is running, then try again.</source>
            <translation>The database at %1 cannot be reached. Check that it is running, then try again.</translation>
        </message>
        <message>
            <source>The database refused the request.</source>
            <translation>The database refused the request.</translation>
        </message>
        <message>
            <source>Redis refused the request.</source>
            <translation>Redis refused the request.</translation>
        </message>
        <message>
            <source>Something went wrong while talking to Redis or the database.</source>
            <translation>Something went wrong while talking to Redis or the database.</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::CalendarDelegate</name>
        <message>
            <source>make-up</source>
            <comment>calendar tile caption</comment>
            <translation>make-up</translation>
        </message>
        <message>
            <source>today</source>
            <comment>calendar tile caption</comment>
            <translation>today</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::CalendarLegend</name>
        <message>
            <source>Today</source>
            <translation>Today</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::ConsoleOptions</name>
        <message>
            <source>Redis server, redis://[user:password@]host:port[/db].</source>
            <translation>Redis server, redis://[user:password@]host:port[/db].</translation>
        </message>
        <message>
            <source>SQL database, mysql://user:password@host:port/name or sqlite:///path.db.</source>
            <translation>SQL database, mysql://user:password@host:port/name or sqlite:///path.db.</translation>
        </message>
        <message>
            <source>Treat this day (YYYY-MM-DD) as today.</source>
            <translation>Treat this day (YYYY-MM-DD) as today.</translation>
        </message>
        <message>
            <source>Time zone of the business day, e.g. Asia/Shanghai.</source>
            <translation>Time zone of the business day, e.g. Asia/Shanghai.</translation>
        </message>
        <message>
            <source>Redis key prefix (default lt:).</source>
            <translation>Redis key prefix (default lt:).</translation>
        </message>
        <message>
            <source>Number of check-in key shards (default 16).</source>
            <translation>Number of check-in key shards (default 16).</translation>
        </message>
        <message>
            <source>monthly or rolling.</source>
            <translation>monthly or rolling.</translation>
        </message>
        <message>
            <source>Points per streak day, e.g. 10,20,30,50.</source>
            <translation>Points per streak day, e.g. 10,20,30,50.</translation>
        </message>
        <message>
            <source>Make-up window in days (0: the current month).</source>
            <translation>Make-up window in days (0: the current month).</translation>
        </message>
        <message>
            <source>Make-ups allowed per month.</source>
            <translation>Make-ups allowed per month.</translation>
        </message>
        <message>
            <source>Whether a make-up grants points (true or false).</source>
            <translation>Whether a make-up grants points (true or false).</translation>
        </message>
        <message>
            <source>Salt of the public user tokens.</source>
            <translation>Salt of the public user tokens.</translation>
        </message>
        <message>
            <source>Named connection profile.</source>
            <translation>Named connection profile.</translation>
        </message>
        <message>
            <source>Profile file to read settings from.</source>
            <translation>Profile file to read settings from.</translation>
        </message>
        <message>
            <source>Lantern Console: look users up, read their check-in calendar and grant make-ups.
Without --redis and --db it starts a sandbox: a private Redis, an SQLite file and demo data.</source>
            <translation>Lantern Console: look users up, read their check-in calendar and grant make-ups.
Without --redis and --db it starts a sandbox: a private Redis, an SQLite file and demo data.</translation>
        </message>
        <message>
            <source>Use the embedded sandbox (the default without --redis and --db).</source>
            <translation>Use the embedded sandbox (the default without --redis and --db).</translation>
        </message>
        <message>
            <source>Where the sandbox keeps its files.</source>
            <translation>Where the sandbox keeps its files.</translation>
        </message>
        <message>
            <source>dir</source>
            <translation>dir</translation>
        </message>
        <message>
            <source>Render a view to this PNG file and exit.</source>
            <translation>Render a view to this PNG file and exit.</translation>
        </message>
        <message>
            <source>file</source>
            <translation>file</translation>
        </message>
        <message>
            <source>The view to render: users.</source>
            <translation>The view to render: users.</translation>
        </message>
        <message>
            <source>name</source>
            <translation>name</translation>
        </message>
        <message>
            <source>Show this user (a uid or a token).</source>
            <translation>Show this user (a uid or a token).</translation>
        </message>
        <message>
            <source>uid</source>
            <translation>uid</translation>
        </message>
        <message>
            <source>Show this month (YYYY-MM).</source>
            <translation>Show this month (YYYY-MM).</translation>
        </message>
        <message>
            <source>month</source>
            <translation>month</translation>
        </message>
        <message>
            <source>Interface language, e.g. zh_CN or en.</source>
            <translation>Interface language, e.g. zh_CN or en.</translation>
        </message>
        <message>
            <source>language</source>
            <translation>language</translation>
        </message>
        <message>
            <source>value</source>
            <translation>value</translation>
        </message>
        <message>
            <source>--sandbox cannot be combined with --redis or --db</source>
            <translation>--sandbox cannot be combined with --redis or --db</translation>
        </message>
        <message>
            <source>--db needs --redis as well (or use --sandbox)</source>
            <translation>--db needs --redis as well (or use --sandbox)</translation>
        </message>
        <message>
            <source>unknown view '%1': the console has one view, users</source>
            <translation>unknown view '%1': the console has one view, users</translation>
        </message>
        <message>
            <source>Select this day (YYYY-MM-DD) in the calendar.</source>
            <translation>Select this day (YYYY-MM-DD) in the calendar.</translation>
        </message>
        <message>
            <source>date</source>
            <translation>date</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::ConsoleSession</name>
        <message numerus="yes">
            <source>Worker: %n check-in(s) persisted</source>
            <translation>
                <numerusform>Worker: %n check-in persisted</numerusform>
                <numerusform>Worker: %n check-ins persisted</numerusform>
            </translation>
        </message>
        <message>
            <source>Demo users: %1</source>
            <translation>Demo users: %1</translation>
        </message>
        <message>
            <source>Sandbox stopped</source>
            <translation>Sandbox stopped</translation>
        </message>
        <message numerus="yes">
            <source>Worker: %n new check-in(s) persisted</source>
            <translation>
                <numerusform>Worker: %n new check-in persisted</numerusform>
                <numerusform>Worker: %n new check-ins persisted</numerusform>
            </translation>
        </message>
        <message>
            <source>Worker: retrying</source>
            <translation>Worker: retrying</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::MainWindow</name>
        <message>
            <source>Lantern Console — Users</source>
            <translation>Lantern Console — Users</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>&amp;File</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>&amp;Quit</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>&amp;Help</translation>
        </message>
        <message>
            <source>&amp;About Lantern</source>
            <translation>&amp;About Lantern</translation>
        </message>
        <message>
            <source>About Lantern</source>
            <translation>About Lantern</translation>
        </message>
        <message>
            <source>&lt;b&gt;Lantern Console&lt;/b&gt; %1&lt;br&gt;Daily check-in and red-envelope campaigns on Redis and SQL.</source>
            <translation>&lt;b&gt;Lantern Console&lt;/b&gt; %1&lt;br&gt;Daily check-in and red-envelope campaigns on Redis and SQL.</translation>
        </message>
        <message>
            <source>Not connected yet</source>
            <translation>Not connected yet</translation>
        </message>
        <message>
            <source>Sandbox</source>
            <translation>Sandbox</translation>
        </message>
        <message>
            <source>Servers</source>
            <translation>Servers</translation>
        </message>
        <message>
            <source>A private Redis and an SQLite file with demo data; nothing here reaches production.</source>
            <translation>A private Redis and an SQLite file with demo data; nothing here reaches production.</translation>
        </message>
        <message>
            <source>Connected to the Redis and SQL servers given on the command line.</source>
            <translation>Connected to the Redis and SQL servers given on the command line.</translation>
        </message>
        <message>
            <source>Redis %1 · SQL %2</source>
            <translation>Redis %1 · SQL %2</translation>
        </message>
        <message>
            <source>Redis: %1
SQL: %2</source>
            <translation>Redis: %1
SQL: %2</translation>
        </message>
        <message>
            <source>Last refresh %1</source>
            <translation>Last refresh %1</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::MakeupDialog</name>
        <message>
            <source>Grant a make-up check-in</source>
            <translation>Grant a make-up check-in</translation>
        </message>
        <message>
            <source>Sign &lt;b&gt;%1&lt;/b&gt; for user &lt;b&gt;%2&lt;/b&gt; as a make-up. It restores the streak; it is recorded in the audit log with your name and reason.</source>
            <translation>Sign &lt;b&gt;%1&lt;/b&gt; for user &lt;b&gt;%2&lt;/b&gt; as a make-up. It restores the streak; it is recorded in the audit log with your name and reason.</translation>
        </message>
        <message>
            <source>Why is it granted? For example: the app was down that evening.</source>
            <translation>Why is it granted? For example: the app was down that evening.</translation>
        </message>
        <message>
            <source>Your name</source>
            <translation>Your name</translation>
        </message>
        <message>
            <source>&amp;Reason:</source>
            <translation>&amp;Reason:</translation>
        </message>
        <message>
            <source>&amp;Operator:</source>
            <translation>&amp;Operator:</translation>
        </message>
        <message>
            <source>Grant make-up</source>
            <translation>Grant make-up</translation>
        </message>
        <message numerus="yes">
            <source>At most %n characters.</source>
            <translation>
                <numerusform>At most %n character.</numerusform>
                <numerusform>At most %n characters.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::MessageBanner</name>
        <message>
            <source>Details</source>
            <translation>Details</translation>
        </message>
        <message>
            <source>Close this message</source>
            <translation>Close this message</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::UserSummaryPanel</name>
        <message>
            <source>Make-up…</source>
            <translation>Make-up…</translation>
        </message>
        <message>
            <source>Current streak</source>
            <translation>Current streak</translation>
        </message>
        <message>
            <source>Points balance</source>
            <translation>Points balance</translation>
        </message>
        <message>
            <source>Grant a make-up check-in for the selected day</source>
            <translation>Grant a make-up check-in for the selected day</translation>
        </message>
        <message>
            <source>User %1</source>
            <translation>User %1</translation>
        </message>
        <message>
            <source>Token: %1</source>
            <translation>Token: %1</translation>
        </message>
        <message numerus="yes">
            <source>day(s)</source>
            <extracomment>The unit after a number of days, as in "12 days"; the number itself is shown bigger.</extracomment>
            <translation>
                <numerusform>day</numerusform>
                <numerusform>days</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>point(s)</source>
            <extracomment>The unit after a points balance, as in "3,430 points".</extracomment>
            <translation>
                <numerusform>point</numerusform>
                <numerusform>points</numerusform>
            </translation>
        </message>
        <message>
            <source>No user shown</source>
            <translation>No user shown</translation>
        </message>
        <message>
            <source>Search for a user id or token.</source>
            <translation>Search for a user id or token.</translation>
        </message>
        <message>
            <source>Longest run in the month</source>
            <translation>Longest run in the month</translation>
        </message>
        <message>
            <source>Days signed in the month</source>
            <translation>Days signed in the month</translation>
        </message>
        <message>
            <source>Make-ups in the month: %1 of %2</source>
            <translation>Make-ups in the month: %1 of %2</translation>
        </message>
    </context>
    <context>
        <name>lantern::ui::UsersView</name>
        <message>
            <source>Look up</source>
            <translation>Look up</translation>
        </message>
        <message>
            <source>This month</source>
            <translation>This month</translation>
        </message>
        <message>
            <source>User id or token, e.g. 10001</source>
            <translation>User id or token, e.g. 10001</translation>
        </message>
        <message>
            <source>Read the shown month again (F5)</source>
            <translation>Read the shown month again (F5)</translation>
        </message>
        <message>
            <source>Waiting for Redis and the database…</source>
            <translation>Waiting for Redis and the database…</translation>
        </message>
        <message>
            <source>Previous month (Ctrl+Page Up)</source>
            <translation>Previous month (Ctrl+Page Up)</translation>
        </message>
        <message>
            <source>Next month (Ctrl+Page Down)</source>
            <translation>Next month (Ctrl+Page Down)</translation>
        </message>
        <message>
            <source>Make-up granted for %1.</source>
            <translation>Make-up granted for %1.</translation>
        </message>
        <message>
            <source>MMMM yyyy</source>
            <extracomment>How the month above the calendar is written, as a QDate format (e.g. "yyyy年M月").</extracomment>
            <translation>MMMM yyyy</translation>
        </message>
        <message>
            <source>Grant a make-up for %1.</source>
            <translation>Grant a make-up for %1.</translation>
        </message>
        <message>
            <source>Select a missed day in the calendar to grant a make-up.</source>
            <translation>Select a missed day in the calendar to grant a make-up.</translation>
        </message>
        <message>
            <source>Make-ups are for past days only.</source>
            <translation>Make-ups are for past days only.</translation>
        </message>
        <message>
            <source>This day is already signed.</source>
            <translation>This day is already signed.</translation>
        </message>
        <message>
            <source>Only days of the current month can be made up.</source>
            <translation>Only days of the current month can be made up.</translation>
        </message>
        <message numerus="yes">
            <source>Only the last %n day(s) can be made up.</source>
            <translation>
                <numerusform>Only yesterday can be made up.</numerusform>
                <numerusform>Only the last %n days can be made up.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>This month's quota of %n make-up(s) is used up.</source>
            <translation>
                <numerusform>This month's quota of %n make-up is used up.</numerusform>
                <numerusform>This month's quota of %n make-ups is used up.</numerusform>
            </translation>
        </message>
        <message>
            <source>Previous month</source>
            <translation>Previous month</translation>
        </message>
        <message>
            <source>Next month</source>
            <translation>Next month</translation>
        </message>
        <message>
            <source>%1 had been signed meanwhile; nothing changed.</source>
            <translation>%1 had been signed meanwhile; nothing changed.</translation>
        </message>
    </context>
</TS>
