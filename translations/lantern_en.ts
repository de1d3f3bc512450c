<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>CampaignService</name>
    <message>
        <source>a campaign needs a name of 1 to 128 characters</source>
        <translation>a campaign needs a name of 1 to 128 characters</translation>
    </message>
    <message>
        <source>invalid --max-attempts %1: expected 1 to 1000</source>
        <translation>invalid --max-attempts %1: expected 1 to 1000</translation>
    </message>
    <message>
        <source>no campaign with id %1</source>
        <translation>no campaign with id %1</translation>
    </message>
    <message>
        <source>campaign %1 is %2: it cannot become %3</source>
        <translation>campaign %1 is %2: it cannot become %3</translation>
    </message>
    <message>
        <source>campaign %1 is %2: only a draft can be launched</source>
        <translation>campaign %1 is %2: only a draft can be launched</translation>
    </message>
    <message>
        <source>campaign %1 is a draft: launch it first</source>
        <translation>campaign %1 is a draft: launch it first</translation>
    </message>
</context>
<context>
    <name>CampaignVerifier</name>
    <message>
        <source>no campaign with id %1</source>
        <translation>no campaign with id %1</translation>
    </message>
    <message>
        <source>%1 envelopes in SQL, the campaign has %2</source>
        <translation>%1 envelopes in SQL, the campaign has %2</translation>
    </message>
    <message>
        <source>envelopes sum to %1 cents, the total is %2</source>
        <translation>envelopes sum to %1 cents, the total is %2</translation>
    </message>
    <message>
        <source>%1 envelopes below the minimum of %2 cents</source>
        <translation>%1 envelopes below the minimum of %2 cents</translation>
    </message>
    <message>
        <source>%1 grabbed (%2 in SQL) of %3 envelopes</source>
        <translation>%1 grabbed (%2 in SQL) of %3 envelopes</translation>
    </message>
    <message>
        <source>%1 users hold an envelope but %2 were grabbed</source>
        <translation>%1 users hold an envelope but %2 were grabbed</translation>
    </message>
    <message>
        <source>a user holds more than one envelope in SQL</source>
        <translation>a user holds more than one envelope in SQL</translation>
    </message>
    <message>
        <source>%1 grabs do not match their envelope</source>
        <translation>%1 grabs do not match their envelope</translation>
    </message>
    <message>
        <source>%1 payout tasks are in the dead-letter list</source>
        <translation>%1 payout tasks are in the dead-letter list</translation>
    </message>
    <message>
        <source>%1 grabs in Redis, %2 rows in SQL</source>
        <translation>%1 grabs in Redis, %2 rows in SQL</translation>
    </message>
    <message>
        <source>%1 payouts (%2 cents) for %3 grabs (%4 cents)</source>
        <translation>%1 payouts (%2 cents) for %3 grabs (%4 cents)</translation>
    </message>
    <message>
        <source>%1 payouts recorded as paid are not in the provider&apos;s ledger with their amount</source>
        <translation>%1 payouts recorded as paid are not in the provider&apos;s ledger with their amount</translation>
    </message>
    <message>
        <source>grabbed %1 + refunded %2 cents differ from the total %3</source>
        <translation>grabbed %1 + refunded %2 cents differ from the total %3</translation>
    </message>
</context>
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
    <name>lantern::CheckinService</name>
    <message>
        <source>cannot check in on %1: it is after today (%2)</source>
        <translation>cannot check in on %1: it is after today (%2)</translation>
    </message>
    <message>
        <source>a make-up needs --operator: who grants it</source>
        <translation>a make-up needs --operator: who grants it</translation>
    </message>
    <message>
        <source>a make-up needs --reason: why it is granted</source>
        <translation>a make-up needs --reason: why it is granted</translation>
    </message>
    <message>
        <source>operator (max %1 characters) or reason (max %2) too long</source>
        <translation>operator (max %1 characters) or reason (max %2) too long</translation>
    </message>
    <message>
        <source>operator and reason must not contain control characters</source>
        <translation>operator and reason must not contain control characters</translation>
    </message>
    <message>
        <source>cannot make up %1: it is today; a make-up is for a past day</source>
        <translation>cannot make up %1: it is today; a make-up is for a past day</translation>
    </message>
    <message>
        <source>cannot make up %1: it is in the future</source>
        <translation>cannot make up %1: it is in the future</translation>
    </message>
    <message>
        <source>make-up of %1 refused: only days of the current month (%2) can be made up</source>
        <translation>make-up of %1 refused: only days of the current month (%2) can be made up</translation>
    </message>
    <message>
        <source>make-up of %1 refused: only the last %2 days can be made up</source>
        <translation>make-up of %1 refused: only the last %2 days can be made up</translation>
    </message>
    <message>
        <source>checkin script returned an unexpected reply</source>
        <translation>checkin script returned an unexpected reply</translation>
    </message>
    <message>
        <source>make-up of %1 refused: the monthly quota of %2 make-ups for %3 is used up</source>
        <translation>make-up of %1 refused: the monthly quota of %2 make-ups for %3 is used up</translation>
    </message>
</context>
<context>
    <name>lantern::Config</name>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected a whole number from %3 to %4</source>
        <translation>invalid %1 &apos;%2&apos;: expected a whole number from %3 to %4</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected true or false</source>
        <translation>invalid %1 &apos;%2&apos;: expected true or false</translation>
    </message>
    <message>
        <source>invalid reward table &apos;%1&apos;: expected comma-separated points such as 10,20,30,50</source>
        <translation>invalid reward table &apos;%1&apos;: expected comma-separated points such as 10,20,30,50</translation>
    </message>
    <message>
        <source>invalid reward table &apos;%1&apos;: expected 1 to 31 entries</source>
        <translation>invalid reward table &apos;%1&apos;: expected 1 to 31 entries</translation>
    </message>
    <message>
        <source>invalid profile name &apos;%1&apos;</source>
        <translation>invalid profile name &apos;%1&apos;</translation>
    </message>
    <message>
        <source>configuration file %1 does not exist</source>
        <translation>configuration file %1 does not exist</translation>
    </message>
    <message>
        <source>unknown setting &apos;%1&apos; in %2</source>
        <translation>unknown setting &apos;%1&apos; in %2</translation>
    </message>
    <message>
        <source>%1 in the profile</source>
        <translation>%1 in the profile</translation>
    </message>
    <message>
        <source>unknown time zone &apos;%1&apos;: expected an IANA name such as Asia/Shanghai</source>
        <translation>unknown time zone &apos;%1&apos;: expected an IANA name such as Asia/Shanghai</translation>
    </message>
    <message>
        <source>shard count</source>
        <translation>shard count</translation>
    </message>
    <message>
        <source>invalid streak policy &apos;%1&apos;: expected monthly or rolling</source>
        <translation>invalid streak policy &apos;%1&apos;: expected monthly or rolling</translation>
    </message>
    <message>
        <source>make-up window</source>
        <translation>make-up window</translation>
    </message>
    <message>
        <source>make-up quota</source>
        <translation>make-up quota</translation>
    </message>
    <message>
        <source>make-up points switch</source>
        <translation>make-up points switch</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected an existing day as YYYY-MM-DD</source>
        <translation>invalid %1 &apos;%2&apos;: expected an existing day as YYYY-MM-DD</translation>
    </message>
    <message>
        <source>date</source>
        <translation>date</translation>
    </message>
    <message>
        <source>invalid month &apos;%1&apos;: expected YYYY-MM</source>
        <translation>invalid month &apos;%1&apos;: expected YYYY-MM</translation>
    </message>
    <message>
        <source>invalid uid &apos;%1&apos;: expected a positive whole number</source>
        <translation>invalid uid &apos;%1&apos;: expected a positive whole number</translation>
    </message>
</context>
<context>
    <name>lantern::DbUrl</name>
    <message>
        <source>invalid database URL &apos;%1&apos;: %2</source>
        <translation>invalid database URL &apos;%1&apos;: %2</translation>
    </message>
    <message>
        <source>expected mysql://user:password@host:port/dbname or sqlite:///absolute/path.db</source>
        <translation>expected mysql://user:password@host:port/dbname or sqlite:///absolute/path.db</translation>
    </message>
    <message>
        <source>SQLite needs an absolute file path, as sqlite:///var/lib/lantern/lantern.db</source>
        <translation>SQLite needs an absolute file path, as sqlite:///var/lib/lantern/lantern.db</translation>
    </message>
    <message>
        <source>the scheme must be mysql or sqlite</source>
        <translation>the scheme must be mysql or sqlite</translation>
    </message>
    <message>
        <source>missing host</source>
        <translation>missing host</translation>
    </message>
    <message>
        <source>the database name must be 1 to 64 of A-Z a-z 0-9 _</source>
        <translation>the database name must be 1 to 64 of A-Z a-z 0-9 _</translation>
    </message>
    <message>
        <source>missing user</source>
        <translation>missing user</translation>
    </message>
    <message>
        <source>unknown parameter &apos;%1&apos; (only unix_socket is supported)</source>
        <translation>unknown parameter &apos;%1&apos; (only unix_socket is supported)</translation>
    </message>
</context>
<context>
    <name>lantern::EnvelopeSplitter</name>
    <message>
        <source>the envelope count must be from 1 to %1, not %2</source>
        <translation>the envelope count must be from 1 to %1, not %2</translation>
    </message>
    <message>
        <source>the minimum envelope must be at least 1 cent, not %1</source>
        <translation>the minimum envelope must be at least 1 cent, not %1</translation>
    </message>
    <message>
        <source>the total must be at least 1 cent, not %1</source>
        <translation>the total must be at least 1 cent, not %1</translation>
    </message>
    <message>
        <source>%1 envelopes of at least %2 cents exceed the largest amount Lantern can hold</source>
        <translation>%1 envelopes of at least %2 cents exceed the largest amount Lantern can hold</translation>
    </message>
    <message>
        <source>the total of %1 cents is less than %2 envelopes of at least %3 cents</source>
        <translation>the total of %1 cents is less than %2 envelopes of at least %3 cents</translation>
    </message>
    <message>
        <source>unknown split algorithm %1</source>
        <translation>unknown split algorithm %1</translation>
    </message>
</context>
<context>
    <name>lantern::HttpPayoutGateway</name>
    <message>
        <source>invalid payout provider URL &apos;%1&apos;: expected http://host[:port]/path or https://...</source>
        <translation>invalid payout provider URL &apos;%1&apos;: expected http://host[:port]/path or https://...</translation>
    </message>
    <message>
        <source>invalid payout attempts %1: expected 1 to 100</source>
        <translation>invalid payout attempts %1: expected 1 to 100</translation>
    </message>
    <message>
        <source>invalid payout timeout or backoff: the timeout must be positive and the backoff not negative</source>
        <translation>invalid payout timeout or backoff: the timeout must be positive and the backoff not negative</translation>
    </message>
    <message>
        <source>the payout provider did not answer within %1 ms</source>
        <translation>the payout provider did not answer within %1 ms</translation>
    </message>
    <message>
        <source>could not reach the payout provider: %1</source>
        <translation>could not reach the payout provider: %1</translation>
    </message>
    <message>
        <source>the payout provider answered HTTP %1 without a payment reference: %2</source>
        <translation>the payout provider answered HTTP %1 without a payment reference: %2</translation>
    </message>
    <message>
        <source>the payout provider is unavailable (HTTP %1): %2</source>
        <translation>the payout provider is unavailable (HTTP %1): %2</translation>
    </message>
    <message>
        <source>the payout provider refused the payout (HTTP %1): %2</source>
        <translation>the payout provider refused the payout (HTTP %1): %2</translation>
    </message>
    <message numerus="yes">
        <source>%1 (gave up after %n attempt(s))</source>
        <translation>
            <numerusform>%1 (gave up after %n attempt(s))</numerusform>
            <numerusform>%1 (gave up after %n attempt(s))</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lantern::KeySchema</name>
    <message>
        <source>invalid key prefix &apos;%1&apos;: use up to 32 of A-Z a-z 0-9 _ . : -</source>
        <translation>invalid key prefix &apos;%1&apos;: use up to 32 of A-Z a-z 0-9 _ . : -</translation>
    </message>
    <message>
        <source>invalid shard count %1: expected 1..16384</source>
        <translation>invalid shard count %1: expected 1..16384</translation>
    </message>
    <message>
        <source>invalid worker id &apos;%1&apos;: use 1 to 64 of A-Z a-z 0-9 _ . -</source>
        <translation>invalid worker id &apos;%1&apos;: use 1 to 64 of A-Z a-z 0-9 _ . -</translation>
    </message>
</context>
<context>
    <name>lantern::LuaScript</name>
    <message>
        <source>Redis computed a different SHA1 for script %1</source>
        <translation>Redis computed a different SHA1 for script %1</translation>
    </message>
</context>
<context>
    <name>lantern::Migrator</name>
    <message>
        <source>cannot create the database directory %1</source>
        <translation>cannot create the database directory %1</translation>
    </message>
    <message>
        <source>another process holds the migration lock for over 30 s</source>
        <translation>another process holds the migration lock for over 30 s</translation>
    </message>
</context>
<context>
    <name>lantern::PayoutGateway</name>
    <message>
        <source>a payout needs an idempotency key of 1 to 255 characters</source>
        <translation>a payout needs an idempotency key of 1 to 255 characters</translation>
    </message>
    <message>
        <source>a payout of %1 cents is not possible: the amount must be positive</source>
        <translation>a payout of %1 cents is not possible: the amount must be positive</translation>
    </message>
</context>
<context>
    <name>lantern::Reconciler</name>
    <message>
        <source>unexpected SSCAN reply</source>
        <translation>unexpected SSCAN reply</translation>
    </message>
</context>
<context>
    <name>lantern::RedisClient</name>
    <message>
        <source>unsupported Redis reply type %1</source>
        <translation>unsupported Redis reply type %1</translation>
    </message>
    <message>
        <source>expected an integer reply from Redis</source>
        <translation>expected an integer reply from Redis</translation>
    </message>
    <message>
        <source>expected a string reply from Redis</source>
        <translation>expected a string reply from Redis</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>out of memory</translation>
    </message>
    <message>
        <source>Redis at %1:%2 %3: %4</source>
        <translation>Redis at %1:%2 %3: %4</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>timed out</translation>
    </message>
    <message>
        <source>is unreachable</source>
        <translation>is unreachable</translation>
    </message>
    <message>
        <source>refused a timeout</source>
        <translation>refused a timeout</translation>
    </message>
    <message>
        <source>invalid Redis URL: %1 has no database %2</source>
        <translation>invalid Redis URL: %1 has no database %2</translation>
    </message>
    <message>
        <source>Redis at %1:%2 rejected the connection: %3</source>
        <translation>Redis at %1:%2 rejected the connection: %3</translation>
    </message>
    <message>
        <source>failed while sending</source>
        <translation>failed while sending</translation>
    </message>
    <message>
        <source>failed while reading a reply</source>
        <translation>failed while reading a reply</translation>
    </message>
</context>
<context>
    <name>lantern::RedisUrl</name>
    <message>
        <source>invalid Redis URL &apos;%1&apos;: expected redis://[user:password@]host:port[/db]</source>
        <translation>invalid Redis URL &apos;%1&apos;: expected redis://[user:password@]host:port[/db]</translation>
    </message>
    <message>
        <source>invalid Redis port in &apos;%1&apos;</source>
        <translation>invalid Redis port in &apos;%1&apos;</translation>
    </message>
    <message>
        <source>invalid Redis database number &apos;%1&apos; in URL</source>
        <translation>invalid Redis database number &apos;%1&apos; in URL</translation>
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
    <name>lantern::SimulatedPayoutGateway</name>
    <message>
        <source>invalid payout failure rate %1: expected a number from 0 to 1</source>
        <translation>invalid payout failure rate %1: expected a number from 0 to 1</translation>
    </message>
    <message>
        <source>invalid payout delay %1 ms: expected 0 to %2</source>
        <translation>invalid payout delay %1 ms: expected 0 to %2</translation>
    </message>
    <message>
        <source>the simulated payout provider failed before paying (injected failure)</source>
        <translation>the simulated payout provider failed before paying (injected failure)</translation>
    </message>
    <message>
        <source>the simulated payout provider failed: %1</source>
        <translation>the simulated payout provider failed: %1</translation>
    </message>
    <message>
        <source>the simulated payout provider holds an unreadable ledger entry for key %1</source>
        <translation>the simulated payout provider holds an unreadable ledger entry for key %1</translation>
    </message>
    <message>
        <source>idempotency key %1 was already paid with %2 cents, not %3</source>
        <translation>idempotency key %1 was already paid with %2 cents, not %3</translation>
    </message>
    <message>
        <source>the simulated payout provider&apos;s answer was lost after paying (injected failure)</source>
        <translation>the simulated payout provider&apos;s answer was lost after paying (injected failure)</translation>
    </message>
    <message>
        <source>the simulated payout provider is unreachable: %1</source>
        <translation>the simulated payout provider is unreachable: %1</translation>
    </message>
    <message>
        <source>the simulated payout ledger holds an unreadable entry for key %1</source>
        <translation>the simulated payout ledger holds an unreadable entry for key %1</translation>
    </message>
    <message>
        <source>unexpected reply to HSCAN of the simulated payout ledger</source>
        <translation>unexpected reply to HSCAN of the simulated payout ledger</translation>
    </message>
    <message>
        <source>the simulated payout ledger&apos;s total does not fit in 64 bits</source>
        <translation>the simulated payout ledger&apos;s total does not fit in 64 bits</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected a number from 0 to 1, such as 0.25</source>
        <translation>invalid %1 &apos;%2&apos;: expected a number from 0 to 1, such as 0.25</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected a whole number of milliseconds from 0 to %3</source>
        <translation>invalid %1 &apos;%2&apos;: expected a whole number of milliseconds from 0 to %3</translation>
    </message>
</context>
<context>
    <name>lantern::SqlConnection</name>
    <message>
        <source>cannot open database %1: %2</source>
        <translation>cannot open database %1: %2</translation>
    </message>
    <message>
        <source>%1 failed on %2: %3</source>
        <translation>%1 failed on %2: %3</translation>
    </message>
    <message>
        <source>preparing &apos;%1&apos;</source>
        <translation>preparing &apos;%1&apos;</translation>
    </message>
    <message>
        <source>running &apos;%1&apos;</source>
        <translation>running &apos;%1&apos;</translation>
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
        <source>This month&apos;s quota of %n make-up(s) is used up.</source>
        <translation>
            <numerusform>This month&apos;s quota of %n make-up is used up.</numerusform>
            <numerusform>This month&apos;s quota of %n make-ups is used up.</numerusform>
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
    <name>lantern::UserTokens</name>
    <message>
        <source>no token secret configured: set LANTERN_TOKEN_SECRET or --token-secret</source>
        <translation>no token secret configured: set LANTERN_TOKEN_SECRET or --token-secret</translation>
    </message>
</context>
<context>
    <name>lantern::WorkerHeartbeat</name>
    <message>
        <source>invalid LANTERN_HEARTBEAT_TTL_S &apos;%1&apos;: expected 1 to 3600 seconds</source>
        <translation>invalid LANTERN_HEARTBEAT_TTL_S &apos;%1&apos;: expected 1 to 3600 seconds</translation>
    </message>
</context>
<context>
    <name>lantern::cli::Campaign</name>
    <message>
        <source>unknown --algorithm &apos;%1&apos;: expected double-mean, smoothed or uniform-cuts</source>
        <translation>unknown --algorithm &apos;%1&apos;: expected double-mean, smoothed or uniform-cuts</translation>
    </message>
</context>
<context>
    <name>lantern::cli::CommandContext</name>
    <message>
        <source>give --uid or --token, not both</source>
        <translation>give --uid or --token, not both</translation>
    </message>
    <message>
        <source>missing --uid (or --token)</source>
        <translation>missing --uid (or --token)</translation>
    </message>
    <message>
        <source>invalid user token &apos;%1&apos;</source>
        <translation>invalid user token &apos;%1&apos;</translation>
    </message>
</context>
<context>
    <name>lantern::cli::CommandLine</name>
    <message>
        <source>missing --%1</source>
        <translation>missing --%1</translation>
    </message>
    <message>
        <source>unknown option &apos;%1&apos;</source>
        <translation>unknown option &apos;%1&apos;</translation>
    </message>
    <message>
        <source>--%1 takes no value</source>
        <translation>--%1 takes no value</translation>
    </message>
    <message>
        <source>--%1 needs a value</source>
        <translation>--%1 needs a value</translation>
    </message>
    <message>
        <source>--%1 given twice</source>
        <translation>--%1 given twice</translation>
    </message>
    <message>
        <source>unknown option --%1 for &apos;%2&apos;</source>
        <translation>unknown option --%1 for &apos;%2&apos;</translation>
    </message>
    <message>
        <source>--%1 does not apply to &apos;%2&apos;</source>
        <translation>--%1 does not apply to &apos;%2&apos;</translation>
    </message>
    <message>
        <source>invalid --%1 &apos;%2&apos;: expected a whole number from %3 to %4</source>
        <translation>invalid --%1 &apos;%2&apos;: expected a whole number from %3 to %4</translation>
    </message>
</context>
<context>
    <name>lantern::cli::Commands</name>
    <message>
        <source>cannot reconcile %1: it is after today</source>
        <translation>cannot reconcile %1: it is after today</translation>
    </message>
    <message>
        <source>invalid --batch: expected 1 to 10000</source>
        <translation>invalid --batch: expected 1 to 10000</translation>
    </message>
    <message>
        <source>%1; retrying in %2 ms</source>
        <translation>%1; retrying in %2 ms</translation>
    </message>
    <message>
        <source>invalid --ttl-s: expected 1 to 31622400 seconds</source>
        <translation>invalid --ttl-s: expected 1 to 31622400 seconds</translation>
    </message>
</context>
<context>
    <name>lantern::cli::Main</name>
    <message>
        <source>unknown command &apos;%1&apos; (see lanternd --help)</source>
        <translation>unknown command &apos;%1&apos; (see lanternd --help)</translation>
    </message>
    <message>
        <source>usage: lanternd COMMAND [options]
commands:
  migrate
  checkin  --uid U|--token T [--date YYYY-MM-DD]
  makeup   --uid U|--token T --date YYYY-MM-DD --reason R --operator O
  calendar --uid U|--token T [--month YYYY-MM]
  reconcile --date YYYY-MM-DD
  work     [--id W] [--once] [--batch N]
  queues
  recover  [--worker W] [--operator O]
  token    --uid U [--ttl-s S]
  campaign create --name N --total-cents T --count C [--min-cents 1] [--algorithm double-mean|smoothed|uniform-cuts]
                  [--seed S] [--max-attempts 9]
  campaign launch|pause|resume|close|show --id I
  grab     --campaign I --uid U|--token T
  verify   [--campaign I]
global options (anywhere): --redis URL --db URL --today YYYY-MM-DD --tz ZONE --prefix P --shards N
  --streak-policy monthly|rolling --rewards 10,20,30,50 --makeup-window-days N --makeup-quota N
  --makeup-points true|false --token-salt S --profile NAME --config FILE
  --lang zh_CN|en (language of the messages; default: the system locale)
environment: LANTERN_REDIS, LANTERN_DB, LANTERN_TODAY, LANTERN_TZ, ... (LANTERN_ + option name)
</source>
        <translation>usage: lanternd COMMAND [options]
commands:
  migrate
  checkin  --uid U|--token T [--date YYYY-MM-DD]
  makeup   --uid U|--token T --date YYYY-MM-DD --reason R --operator O
  calendar --uid U|--token T [--month YYYY-MM]
  reconcile --date YYYY-MM-DD
  work     [--id W] [--once] [--batch N]
  queues
  recover  [--worker W] [--operator O]
  token    --uid U [--ttl-s S]
  campaign create --name N --total-cents T --count C [--min-cents 1] [--algorithm double-mean|smoothed|uniform-cuts]
                  [--seed S] [--max-attempts 9]
  campaign launch|pause|resume|close|show --id I
  grab     --campaign I --uid U|--token T
  verify   [--campaign I]
global options (anywhere): --redis URL --db URL --today YYYY-MM-DD --tz ZONE --prefix P --shards N
  --streak-policy monthly|rolling --rewards 10,20,30,50 --makeup-window-days N --makeup-quota N
  --makeup-points true|false --token-salt S --profile NAME --config FILE
  --lang zh_CN|en (language of the messages; default: the system locale)
environment: LANTERN_REDIS, LANTERN_DB, LANTERN_TODAY, LANTERN_TZ, ... (LANTERN_ + option name)
</translation>
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
        <source>unknown view &apos;%1&apos;: the console has one view, users</source>
        <translation>unknown view &apos;%1&apos;: the console has one view, users</translation>
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
        <extracomment>The unit after a number of days, as in &quot;12 days&quot;; the number itself is shown bigger.</extracomment>
        <translation>
            <numerusform>day</numerusform>
            <numerusform>days</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>point(s)</source>
        <extracomment>The unit after a points balance, as in &quot;3,430 points&quot;.</extracomment>
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
        <extracomment>How the month above the calendar is written, as a QDate format (e.g. &quot;yyyy年M月&quot;).</extracomment>
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
        <source>This month&apos;s quota of %n make-up(s) is used up.</source>
        <translation>
            <numerusform>This month&apos;s quota of %n make-up is used up.</numerusform>
            <numerusform>This month&apos;s quota of %n make-ups is used up.</numerusform>
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
