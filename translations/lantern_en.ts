<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>AccessText</name>
    <message>
        <source>unknown --role &apos;%1&apos;: expected viewer, support, manager, oncall, worker, api or admin</source>
        <translation>unknown --role &apos;%1&apos;: expected viewer, support, manager, oncall, worker, api or admin</translation>
    </message>
    <message>
        <source>cannot read --password-file %1: %2</source>
        <translation>cannot read --password-file %1: %2</translation>
    </message>
    <message>
        <source>warning: %1 of %2 Redis nodes have no aclfile: the change is lost when they restart (docs/security.md)</source>
        <translation>warning: %1 of %2 Redis nodes have no aclfile: the change is lost when they restart (docs/security.md)</translation>
    </message>
    <message>
        <source>there is no operator account %1</source>
        <translation>there is no operator account %1</translation>
    </message>
</context>
<context>
    <name>CampaignDraftCheck</name>
    <message>
        <source>Give the campaign a name.</source>
        <translation>Give the campaign a name.</translation>
    </message>
    <message numerus="yes">
        <source>The name is too long: at most %n characters.</source>
        <translation>
            <numerusform>The name is too long: at most %n character.</numerusform>
            <numerusform>The name is too long: at most %n characters.</numerusform>
        </translation>
    </message>
    <message>
        <source>The name must not contain control characters.</source>
        <translation>The name must not contain control characters.</translation>
    </message>
    <message>
        <source>Enter the total amount in yuan.</source>
        <translation>Enter the total amount in yuan.</translation>
    </message>
    <message>
        <source>Not an amount: use yuan with at most two decimals, e.g. 888.88 (and nothing beyond ¥92,233,720,368,547,758.07).</source>
        <translation>Not an amount: use yuan with at most two decimals, e.g. 888.88 (and nothing beyond ¥92,233,720,368,547,758.07).</translation>
    </message>
    <message>
        <source>The total must be at least ¥0.01.</source>
        <translation>The total must be at least ¥0.01.</translation>
    </message>
    <message>
        <source>Enter how many envelopes to split the total into.</source>
        <translation>Enter how many envelopes to split the total into.</translation>
    </message>
    <message>
        <source>Not a whole number.</source>
        <translation>Not a whole number.</translation>
    </message>
    <message>
        <source>There must be at least one envelope.</source>
        <translation>There must be at least one envelope.</translation>
    </message>
    <message>
        <source>At most %1 envelopes per campaign.</source>
        <translation>At most %1 envelopes per campaign.</translation>
    </message>
    <message>
        <source>Not an amount: use yuan with at most two decimals, e.g. 0.01.</source>
        <translation>Not an amount: use yuan with at most two decimals, e.g. 0.01.</translation>
    </message>
    <message>
        <source>Every envelope must hold at least ¥0.01.</source>
        <translation>Every envelope must hold at least ¥0.01.</translation>
    </message>
    <message>
        <source>%1 envelopes of at least %2 is more money than can be counted: lower the count or the minimum.</source>
        <translation>%1 envelopes of at least %2 is more money than can be counted: lower the count or the minimum.</translation>
    </message>
    <message>
        <source>Too little for %1 envelopes of at least %2: the total must be at least %3.</source>
        <translation>Too little for %1 envelopes of at least %2: the total must be at least %3.</translation>
    </message>
    <message>
        <source>Enter a seed (a whole number), or press Random.</source>
        <translation>Enter a seed (a whole number), or press Random.</translation>
    </message>
    <message>
        <source>The seed is a whole number from 0 to %1.</source>
        <translation>The seed is a whole number from 0 to %1.</translation>
    </message>
    <message>
        <source>From 1 to 1000 grab attempts per user.</source>
        <translation>From 1 to 1000 grab attempts per user.</translation>
    </message>
</context>
<context>
    <name>CampaignRepair</name>
    <message>
        <source>no campaign with id %1</source>
        <translation>no campaign with id %1</translation>
    </message>
    <message>
        <source>campaign %1 is a draft: it has no grabs to repair</source>
        <translation>campaign %1 is a draft: it has no grabs to repair</translation>
    </message>
    <message>
        <source>campaign %1 is being repaired by another process; try again when it is done</source>
        <translation>campaign %1 is being repaired by another process; try again when it is done</translation>
    </message>
    <message>
        <source>workers keep registering; the repair of campaign %1 could not read their lists</source>
        <translation>workers keep registering; the repair of campaign %1 could not read their lists</translation>
    </message>
    <message>
        <source>campaign %1 has %2 envelopes in SQL instead of %3: its pool cannot be rebuilt</source>
        <translation>campaign %1 has %2 envelopes in SQL instead of %3: its pool cannot be rebuilt</translation>
    </message>
    <message>
        <source>the repair of campaign %1 took longer than %2 s and was abandoned; run it again</source>
        <translation>the repair of campaign %1 took longer than %2 s and was abandoned; run it again</translation>
    </message>
</context>
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
    <message>
        <source>a campaign name must not contain control characters or text that is not valid UTF-8</source>
        <translation>a campaign name must not contain control characters or text that is not valid UTF-8</translation>
    </message>
    <message>
        <source>campaign %1 is being repaired from the ledger; try again in a moment</source>
        <translation>campaign %1 is being repaired from the ledger; try again in a moment</translation>
    </message>
    <message>
        <source>invalid --pools %1: expected 1 to %2</source>
        <translation>invalid --pools %1: expected 1 to %2</translation>
    </message>
    <message>
        <source>invalid --pools %1: a campaign of %2 envelopes has at most %2 pools</source>
        <translation>invalid --pools %1: a campaign of %2 envelopes has at most %2 pools</translation>
    </message>
    <message>
        <source>campaign %1&apos;s pool names in SQL are not a list of its %2 pools</source>
        <translation>campaign %1&apos;s pool names in SQL are not a list of its %2 pools</translation>
    </message>
    <message>
        <source>campaign %1 is above the four-eyes bound: a manager other than %2 must approve it first (campaign approve --id %1)</source>
        <translation>campaign %1 is above the four-eyes bound: a manager other than %2 must approve it first (campaign approve --id %1)</translation>
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
    <message>
        <source>%1 grabs (%2 cents) in Redis, %3 rows (%4 cents) in SQL</source>
        <translation>%1 grabs (%2 cents) in Redis, %3 rows (%4 cents) in SQL</translation>
    </message>
    <message>
        <source>%1 envelopes left in the pools and %2 grabbed, of %3</source>
        <translation>%1 envelopes left in the pools and %2 grabbed, of %3</translation>
    </message>
    <message>
        <source>%1 grabs of a campaign the ledger has no row of (made up in Redis): refused, not paid</source>
        <translation>%1 grabs of a campaign the ledger has no row of (made up in Redis): refused, not paid</translation>
    </message>
    <message>
        <source>%1 grabs of envelopes the ledger holds no launch of (set live or pushed into a pool in Redis by hand): refused, not paid</source>
        <translation>%1 grabs of envelopes the ledger holds no launch of (set live or pushed into a pool in Redis by hand): refused, not paid</translation>
    </message>
    <message>
        <source>Redis holds the campaign as %1 while the ledger holds a draft: it was not launched through SQL</source>
        <translation>Redis holds the campaign as %1 while the ledger holds a draft: it was not launched through SQL</translation>
    </message>
    <message>
        <source>%1 grab rows (%2 cents) in SQL, the workers wrote %3 (%4 cents): grab rows were changed outside Lantern</source>
        <translation>%1 grab rows (%2 cents) in SQL, the workers wrote %3 (%4 cents): grab rows were changed outside Lantern</translation>
    </message>
    <message>
        <source>%1 paid payouts (%2 cents) in SQL, the workers recorded %3 (%4 cents): payout rows were changed outside Lantern</source>
        <translation>%1 paid payouts (%2 cents) in SQL, the workers recorded %3 (%4 cents): payout rows were changed outside Lantern</translation>
    </message>
    <message>
        <source>the launch recorded %1 envelopes of %2 cents (the smallest %3) where the rows hold %4 of %5 cents (the smallest %6): the recorded split was changed outside Lantern</source>
        <translation>the launch recorded %1 envelopes of %2 cents (the smallest %3) where the rows hold %4 of %5 cents (the smallest %6): the recorded split was changed outside Lantern</translation>
    </message>
</context>
<context>
    <name>GrabService</name>
    <message>
        <source>campaign %1 is being repaired from the ledger; try again in a moment</source>
        <translation>campaign %1 is being repaired from the ledger; try again in a moment</translation>
    </message>
</context>
<context>
    <name>QCommandLineParser</name>
    <message>
        <source>Displays help on commandline options.</source>
        <translation>Displays help on commandline options.</translation>
    </message>
    <message>
        <source>Displays help including Qt specific options.</source>
        <translation>Displays help including Qt specific options.</translation>
    </message>
    <message>
        <source>Displays version information.</source>
        <translation>Displays version information.</translation>
    </message>
</context>
<context>
    <name>lantern::ApiGate</name>
    <message>
        <source>no such endpoint: %1</source>
        <translation>no such endpoint: %1</translation>
    </message>
    <message>
        <source>%1 takes %2 only</source>
        <translation>%1 takes %2 only</translation>
    </message>
    <message>
        <source>request body too large: at most %1 bytes</source>
        <translation>request body too large: at most %1 bytes</translation>
    </message>
    <message>
        <source>invalid campaign id: expected a positive whole number</source>
        <translation>invalid campaign id: expected a positive whole number</translation>
    </message>
    <message numerus="yes">
        <source>too many requests; retry after %n second(s)</source>
        <translation>
            <numerusform>too many requests; retry after %n second</numerusform>
            <numerusform>too many requests; retry after %n seconds</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is switched off for now</source>
        <translation>%1 is switched off for now</translation>
    </message>
    <message>
        <source>missing bearer token: send &apos;Authorization: Bearer &lt;token&gt;&apos;</source>
        <translation>missing bearer token: send &apos;Authorization: Bearer &lt;token&gt;&apos;</translation>
    </message>
    <message>
        <source>unsupported authorization scheme: expected &apos;Bearer &lt;token&gt;&apos;</source>
        <translation>unsupported authorization scheme: expected &apos;Bearer &lt;token&gt;&apos;</translation>
    </message>
    <message>
        <source>invalid or expired bearer token</source>
        <translation>invalid or expired bearer token</translation>
    </message>
    <message>
        <source>query parameter &apos;%1&apos; appears more than once: send each parameter at most once</source>
        <translation>query parameter &apos;%1&apos; appears more than once: send each parameter at most once</translation>
    </message>
</context>
<context>
    <name>lantern::ApiHandler</name>
    <message>
        <source>internal error; the server log has the details</source>
        <translation>internal error; the server log has the details</translation>
    </message>
    <message>
        <source>no such endpoint: %1</source>
        <translation>no such endpoint: %1</translation>
    </message>
    <message>
        <source>malformed JSON body at offset %1: %2</source>
        <translation>malformed JSON body at offset %1: %2</translation>
    </message>
    <message>
        <source>the body must be a JSON object</source>
        <translation>the body must be a JSON object</translation>
    </message>
    <message>
        <source>unknown field &apos;%1&apos;: this endpoint takes no fields</source>
        <translation>unknown field &apos;%1&apos;: this endpoint takes no fields</translation>
    </message>
    <message>
        <source>GET /v1/calendar takes no body</source>
        <translation>GET /v1/calendar takes no body</translation>
    </message>
    <message>
        <source>unknown query parameter &apos;%1&apos;: only month=YYYY-MM</source>
        <translation>unknown query parameter &apos;%1&apos;: only month=YYYY-MM</translation>
    </message>
    <message>
        <source>campaign %1 is not launched or does not exist</source>
        <translation>campaign %1 is not launched or does not exist</translation>
    </message>
</context>
<context>
    <name>lantern::AuditLogModel</name>
    <message>
        <source>Time</source>
        <translation>Time</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>Who</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>Action</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>Target</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>yes</translation>
    </message>
    <message>
        <source>no</source>
        <translation>no</translation>
    </message>
    <message>
        <source>Back-filled</source>
        <translation>Back-filled</translation>
    </message>
    <message>
        <source>Completed from SQL</source>
        <translation>Completed from SQL</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>Envelopes</translation>
    </message>
    <message>
        <source>Day</source>
        <translation>Day</translation>
    </message>
    <message>
        <source>In SQL before</source>
        <translation>In SQL before</translation>
    </message>
    <message>
        <source>Set aside as unreadable</source>
        <translation>Set aside as unreadable</translation>
    </message>
    <message>
        <source>Users holding an envelope, after</source>
        <translation>Users holding an envelope, after</translation>
    </message>
    <message>
        <source>Users holding an envelope, before</source>
        <translation>Users holding an envelope, before</translation>
    </message>
    <message>
        <source>Entry</source>
        <translation>Entry</translation>
    </message>
    <message>
        <source>Feature</source>
        <translation>Feature</translation>
    </message>
    <message>
        <source>Grabbed amount</source>
        <translation>Grabbed amount</translation>
    </message>
    <message>
        <source>Envelopes grabbed</source>
        <translation>Envelopes grabbed</translation>
    </message>
    <message>
        <source>Campaign</source>
        <translation>Campaign</translation>
    </message>
    <message>
        <source>Grabs in flight</source>
        <translation>Grabs in flight</translation>
    </message>
    <message>
        <source>Grabs in the ledger</source>
        <translation>Grabs in the ledger</translation>
    </message>
    <message>
        <source>Smallest envelope</source>
        <translation>Smallest envelope</translation>
    </message>
    <message>
        <source>Missing</source>
        <translation>Missing</translation>
    </message>
    <message>
        <source>Envelopes in the pool, after</source>
        <translation>Envelopes in the pool, after</translation>
    </message>
    <message>
        <source>Envelopes in the pool, before</source>
        <translation>Envelopes in the pool, before</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Reason</translation>
    </message>
    <message>
        <source>In Redis</source>
        <translation>In Redis</translation>
    </message>
    <message>
        <source>Refunded</source>
        <translation>Refunded</translation>
    </message>
    <message>
        <source>Grabs in flight the ledger refuses</source>
        <translation>Grabs in flight the ledger refuses</translation>
    </message>
    <message>
        <source>Re-queued</source>
        <translation>Re-queued</translation>
    </message>
    <message>
        <source>State</source>
        <translation>State</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Total</translation>
    </message>
    <message>
        <source>Via</source>
        <translation>Via</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>Workers</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <extracomment>One field of an audit entry&apos;s details in the log&apos;s Details column: its label, then its value.</extracomment>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Put back as</source>
        <translation>Put back as</translation>
    </message>
    <message>
        <source>Free text: the log cannot be sorted by it</source>
        <translation>Free text: the log cannot be sorted by it</translation>
    </message>
    <message>
        <source>, </source>
        <translation>, </translation>
    </message>
    <message>
        <source>Campaign created</source>
        <translation>Campaign created</translation>
    </message>
    <message>
        <source>Campaign launched</source>
        <translation>Campaign launched</translation>
    </message>
    <message>
        <source>Campaign paused</source>
        <translation>Campaign paused</translation>
    </message>
    <message>
        <source>Campaign resumed</source>
        <translation>Campaign resumed</translation>
    </message>
    <message>
        <source>Campaign closed</source>
        <translation>Campaign closed</translation>
    </message>
    <message>
        <source>Campaign rebuilt from SQL</source>
        <translation>Campaign rebuilt from SQL</translation>
    </message>
    <message>
        <source>Make-up granted</source>
        <translation>Make-up granted</translation>
    </message>
    <message>
        <source>Back-dated check-in</source>
        <translation>Back-dated check-in</translation>
    </message>
    <message>
        <source>Check-ins reconciled</source>
        <translation>Check-ins reconciled</translation>
    </message>
    <message>
        <source>Dead letter retried</source>
        <translation>Dead letter retried</translation>
    </message>
    <message>
        <source>Dead letter discarded</source>
        <translation>Dead letter discarded</translation>
    </message>
    <message>
        <source>Dead letter edited and retried</source>
        <translation>Dead letter edited and retried</translation>
    </message>
    <message>
        <source>Dead workers&apos; tasks recovered</source>
        <translation>Dead workers&apos; tasks recovered</translation>
    </message>
    <message>
        <source>Details (JSON)</source>
        <extracomment>The CSV column that holds each audit entry&apos;s details as stored.</extracomment>
        <translation>Details (JSON)</translation>
    </message>
    <message>
        <source>Campaign approved</source>
        <translation>Campaign approved</translation>
    </message>
    <message>
        <source>Campaign timetable set</source>
        <translation>Campaign timetable set</translation>
    </message>
    <message>
        <source>Scheduled transition missed</source>
        <translation>Scheduled transition missed</translation>
    </message>
    <message>
        <source>API feature switched</source>
        <translation>API feature switched</translation>
    </message>
    <message>
        <source>Accounts and roles installed</source>
        <translation>Accounts and roles installed</translation>
    </message>
    <message>
        <source>Operator added</source>
        <translation>Operator added</translation>
    </message>
    <message>
        <source>Operator removed</source>
        <translation>Operator removed</translation>
    </message>
    <message>
        <source>Operator&apos;s password changed</source>
        <translation>Operator&apos;s password changed</translation>
    </message>
    <message>
        <source>Operator&apos;s role changed</source>
        <translation>Operator&apos;s role changed</translation>
    </message>
    <message>
        <source>ACL saved</source>
        <translation>ACL saved</translation>
    </message>
    <message>
        <source>Split algorithm</source>
        <translation>Split algorithm</translation>
    </message>
    <message>
        <source>Four-eyes bound</source>
        <translation>Four-eyes bound</translation>
    </message>
    <message>
        <source>Approved by</source>
        <translation>Approved by</translation>
    </message>
    <message>
        <source>Cleared</source>
        <translation>Cleared</translation>
    </message>
    <message>
        <source>Close at</source>
        <translation>Close at</translation>
    </message>
    <message>
        <source>Created by</source>
        <translation>Created by</translation>
    </message>
    <message>
        <source>Due at</source>
        <translation>Due at</translation>
    </message>
    <message>
        <source>Late limit (s)</source>
        <translation>Late limit (s)</translation>
    </message>
    <message>
        <source>Late by (ms)</source>
        <translation>Late by (ms)</translation>
    </message>
    <message>
        <source>Launch at</source>
        <translation>Launch at</translation>
    </message>
    <message>
        <source>Lent envelopes settled</source>
        <translation>Lent envelopes settled</translation>
    </message>
    <message>
        <source>Attempts per user</source>
        <translation>Attempts per user</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Needs approval</source>
        <translation>Needs approval</translation>
    </message>
    <message>
        <source>Pools</source>
        <translation>Pools</translation>
    </message>
    <message>
        <source>Redis nodes</source>
        <translation>Redis nodes</translation>
    </message>
    <message>
        <source>Replaced</source>
        <translation>Replaced</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>Role</translation>
    </message>
    <message>
        <source>Roles</source>
        <translation>Roles</translation>
    </message>
    <message>
        <source>Scripts loaded</source>
        <translation>Scripts loaded</translation>
    </message>
    <message>
        <source>Random seed</source>
        <translation>Random seed</translation>
    </message>
    <message>
        <source>Transition</source>
        <translation>Transition</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>Worker</translation>
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
    <name>lantern::CampaignApproval</name>
    <message>
        <source>approvals need accounts, which SQLite has not (docs/security.md)</source>
        <translation>approvals need accounts, which SQLite has not (docs/security.md)</translation>
    </message>
    <message>
        <source>campaign %1 is %2: only a draft is approved</source>
        <translation>campaign %1 is %2: only a draft is approved</translation>
    </message>
    <message>
        <source>campaign %1 was created by %2: another manager must approve it</source>
        <translation>campaign %1 was created by %2: another manager must approve it</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignConsoleService</name>
    <message>
        <source>Campaign %1 does not exist (any more).</source>
        <translation>Campaign %1 does not exist (any more).</translation>
    </message>
    <message>
        <source>The campaign was not created: its settings were refused.</source>
        <translation>The campaign was not created: its settings were refused.</translation>
    </message>
    <message>
        <source>The campaign was not created. %1</source>
        <translation>The campaign was not created. %1</translation>
    </message>
    <message>
        <source>This campaign can no longer be launched: its status changed meanwhile. The list now shows it as it is.</source>
        <translation>This campaign can no longer be launched: its status changed meanwhile. The list now shows it as it is.</translation>
    </message>
    <message>
        <source>This campaign cannot be paused: only a live campaign can. The list now shows it as it is.</source>
        <translation>This campaign cannot be paused: only a live campaign can. The list now shows it as it is.</translation>
    </message>
    <message>
        <source>This campaign cannot be resumed: only a paused campaign can. The list now shows it as it is.</source>
        <translation>This campaign cannot be resumed: only a paused campaign can. The list now shows it as it is.</translation>
    </message>
    <message>
        <source>This campaign cannot be closed now. The list now shows it as it is.</source>
        <translation>This campaign cannot be closed now. The list now shows it as it is.</translation>
    </message>
    <message>
        <source>The campaign was not created: %1</source>
        <translation>The campaign was not created: %1</translation>
    </message>
    <message>
        <source>The times were not changed: %1</source>
        <translation>The times were not changed: %1</translation>
    </message>
    <message>
        <source>The times were not changed. %1</source>
        <translation>The times were not changed. %1</translation>
    </message>
    <message>
        <source>Campaign #%1 is above the four-eyes bound: a manager other than its creator must approve it before it is launched.</source>
        <translation>Campaign #%1 is above the four-eyes bound: a manager other than its creator must approve it before it is launched.</translation>
    </message>
    <message>
        <source>You created campaign #%1: another manager must approve it.</source>
        <translation>You created campaign #%1: another manager must approve it.</translation>
    </message>
    <message>
        <source>Only a draft is approved: this campaign was launched or closed meanwhile. The list now shows it as it is.</source>
        <translation>Only a draft is approved: this campaign was launched or closed meanwhile. The list now shows it as it is.</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignListModel</name>
    <message>
        <source>Draft</source>
        <translation>Draft</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>Live</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Paused</translation>
    </message>
    <message>
        <source>Closed</source>
        <translation>Closed</translation>
    </message>
    <message>
        <source>Double mean</source>
        <translation>Double mean</translation>
    </message>
    <message>
        <source>Smoothed</source>
        <translation>Smoothed</translation>
    </message>
    <message>
        <source>Uniform cuts</source>
        <translation>Uniform cuts</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <extracomment>Envelopes grabbed of the campaign&apos;s count, e.g. &quot;120 / 500&quot;.</extracomment>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Grabbed / count</source>
        <translation>Grabbed / count</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Total</translation>
    </message>
    <message>
        <source>Grabbed amount</source>
        <translation>Grabbed amount</translation>
    </message>
    <message>
        <source>Split</source>
        <translation>Split</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>Created</translation>
    </message>
    <message>
        <source>Grabbed</source>
        <translation>Grabbed</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>Envelopes</translation>
    </message>
    <message>
        <source>Total (yuan)</source>
        <extracomment>A CSV column of amounts in yuan, as plain numbers.</extracomment>
        <translation>Total (yuan)</translation>
    </message>
    <message>
        <source>Grabbed amount (yuan)</source>
        <translation>Grabbed amount (yuan)</translation>
    </message>
    <message>
        <source>awaiting approval</source>
        <extracomment>Four eyes: a campaign above the bound no second manager approved yet.</extracomment>
        <translation>awaiting approval</translation>
    </message>
    <message>
        <source>approved by %1</source>
        <translation>approved by %1</translation>
    </message>
    <message>
        <source>Above the four-eyes bound: a manager other than %1 must approve it before it is launched.</source>
        <translation>Above the four-eyes bound: a manager other than %1 must approve it before it is launched.</translation>
    </message>
    <message>
        <source>Approved by %1 on %2.</source>
        <translation>Approved by %1 on %2.</translation>
    </message>
    <message>
        <source>Created by</source>
        <translation>Created by</translation>
    </message>
    <message>
        <source>Approval</source>
        <extracomment>Four eyes: who approved a campaign above the bound.</extracomment>
        <translation>Approval</translation>
    </message>
    <message>
        <source>Needs approval</source>
        <extracomment>CSV columns of the four-eyes approval: 1 or 0, then the approving account.</extracomment>
        <translation>Needs approval</translation>
    </message>
    <message>
        <source>Approved by</source>
        <translation>Approved by</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignPools</name>
    <message>
        <source>campaign %1&apos;s pools field in Redis is not a list of its pools: %2</source>
        <translation>campaign %1&apos;s pools field in Redis is not a list of its pools: %2</translation>
    </message>
    <message>
        <source>invalid --pools %1: expected 1 to %2</source>
        <translation>invalid --pools %1: expected 1 to %2</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignPreviewer</name>
    <message>
        <source>Not enough memory to preview this many envelopes.</source>
        <translation>Not enough memory to preview this many envelopes.</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignSchedule</name>
    <message>
        <source>invalid --%1 &apos;%2&apos;: expected an ISO 8601 time with its offset (2026-12-31T20:00:00+08:00) or a local time (2026-12-31T20:00) in the --tz zone</source>
        <translation>invalid --%1 &apos;%2&apos;: expected an ISO 8601 time with its offset (2026-12-31T20:00:00+08:00) or a local time (2026-12-31T20:00) in the --tz zone</translation>
    </message>
    <message>
        <source>invalid --%1 &apos;%2&apos;: there is no such local time in %3 (a daylight-saving change skips it)</source>
        <translation>invalid --%1 &apos;%2&apos;: there is no such local time in %3 (a daylight-saving change skips it)</translation>
    </message>
    <message>
        <source>--clear drops the campaign&apos;s pending times: give it alone</source>
        <translation>--clear drops the campaign&apos;s pending times: give it alone</translation>
    </message>
    <message>
        <source>nothing to schedule: give --launch-at, --close-at, --late-limit or --clear</source>
        <translation>nothing to schedule: give --launch-at, --close-at, --late-limit or --clear</translation>
    </message>
    <message>
        <source>invalid --late-limit %1: expected 1 to %2 seconds</source>
        <translation>invalid --late-limit %1: expected 1 to %2 seconds</translation>
    </message>
    <message>
        <source>the campaign is closed: it takes no times any more</source>
        <translation>the campaign is closed: it takes no times any more</translation>
    </message>
    <message>
        <source>the campaign is %1: only a draft can be scheduled to launch</source>
        <translation>the campaign is %1: only a draft can be scheduled to launch</translation>
    </message>
    <message>
        <source>--%1 %2 has passed: the servers&apos; time is %3</source>
        <translation>--%1 %2 has passed: the servers&apos; time is %3</translation>
    </message>
    <message>
        <source>the close (%1) must come after the launch (%2)</source>
        <translation>the close (%1) must come after the launch (%2)</translation>
    </message>
    <message>
        <source>--late-limit applies to pending times, and the campaign has none</source>
        <translation>--late-limit applies to pending times, and the campaign has none</translation>
    </message>
    <message>
        <source>no campaign with id %1</source>
        <translation>no campaign with id %1</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignTimetable</name>
    <message>
        <source>%1 s late, over its late limit of %2 s</source>
        <translation>%1 s late, over its late limit of %2 s</translation>
    </message>
    <message>
        <source>the campaign does not exist</source>
        <translation>the campaign does not exist</translation>
    </message>
    <message>
        <source>the campaign was closed before its launch time</source>
        <translation>the campaign was closed before its launch time</translation>
    </message>
    <message>
        <source>launched before its time</source>
        <translation>launched before its time</translation>
    </message>
    <message>
        <source>closed before its time</source>
        <translation>closed before its time</translation>
    </message>
    <message>
        <source>campaign %1: %2 made %3 s after its time (%4)</source>
        <translation>campaign %1: %2 made %3 s after its time (%4)</translation>
    </message>
    <message>
        <source>campaign %1: %2 due at %3 not made: %4</source>
        <translation>campaign %1: %2 due at %3 not made: %4</translation>
    </message>
    <message>
        <source>no second manager approved the campaign before its launch time (four eyes)</source>
        <translation>no second manager approved the campaign before its launch time (four eyes)</translation>
    </message>
</context>
<context>
    <name>lantern::CheckinHistoryModel</name>
    <message>
        <source>Make-up</source>
        <translation>Make-up</translation>
    </message>
    <message>
        <source>Check-in</source>
        <translation>Check-in</translation>
    </message>
    <message>
        <source>Day</source>
        <translation>Day</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Kind</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>Points</translation>
    </message>
    <message>
        <source>Operator</source>
        <translation>Operator</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Reason</translation>
    </message>
</context>
<context>
    <name>lantern::CheckinLayout</name>
    <message>
        <source>unexpected BITFIELD reply</source>
        <translation>unexpected BITFIELD reply</translation>
    </message>
</context>
<context>
    <name>lantern::CheckinRun</name>
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
    <message>
        <source>invalid rate limit &apos;%1&apos; in %2: expected R or R/B (requests per second and burst, 0 for unlimited)</source>
        <translation>invalid rate limit &apos;%1&apos; in %2: expected R or R/B (requests per second and burst, 0 for unlimited)</translation>
    </message>
    <message>
        <source>read-only switch</source>
        <translation>read-only switch</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected REPLICAS/MILLISECONDS such as 1/50</source>
        <translation>invalid %1 &apos;%2&apos;: expected REPLICAS/MILLISECONDS such as 1/50</translation>
    </message>
    <message>
        <source>replicas to wait for</source>
        <translation>replicas to wait for</translation>
    </message>
    <message>
        <source>wait for replicas, in milliseconds</source>
        <translation>wait for replicas, in milliseconds</translation>
    </message>
    <message>
        <source>cannot read credential %1: %2</source>
        <translation>cannot read credential %1: %2</translation>
    </message>
    <message>
        <source>credential %1</source>
        <translation>credential %1</translation>
    </message>
    <message>
        <source>--sentinel-user and --sentinel-password are for a redis-sentinel:// URL</source>
        <translation>--sentinel-user and --sentinel-password are for a redis-sentinel:// URL</translation>
    </message>
    <message>
        <source>%1 reaches its servers through an SSH tunnel, which only the console&apos;s Connections view opens: run this where the servers are reached directly, or open the profile there</source>
        <translation>%1 reaches its servers through an SSH tunnel, which only the console&apos;s Connections view opens: run this where the servers are reached directly, or open the profile there</translation>
    </message>
</context>
<context>
    <name>lantern::ConnectionErrors</name>
    <message>
        <source>This connection is read-only: the request would have changed data, so it was not sent.</source>
        <translation>This connection is read-only: the request would have changed data, so it was not sent.</translation>
    </message>
    <message>
        <source>The Redis user of %1 is not allowed to connect this way.</source>
        <translation>The Redis user of %1 is not allowed to connect this way.</translation>
    </message>
    <message>
        <source>Redis at %1 refused the user name or password.</source>
        <translation>Redis at %1 refused the user name or password.</translation>
    </message>
    <message>
        <source>Redis at %1 did not answer in time. Check that it is running and reachable, then try again.</source>
        <translation>Redis at %1 did not answer in time. Check that it is running and reachable, then try again.</translation>
    </message>
    <message>
        <source>Redis at %1 does not answer. Check that it is running, then try again.</source>
        <translation>Redis at %1 does not answer. Check that it is running, then try again.</translation>
    </message>
    <message>
        <source>The Redis user of %1 is not allowed to do this.</source>
        <translation>The Redis user of %1 is not allowed to do this.</translation>
    </message>
    <message>
        <source>Redis refused the request.</source>
        <translation>Redis refused the request.</translation>
    </message>
    <message>
        <source>The database at %1 refused the user name or password.</source>
        <translation>The database at %1 refused the user name or password.</translation>
    </message>
    <message>
        <source>The database server at %1 has no database named “%2”.</source>
        <translation>The database server at %1 has no database named “%2”.</translation>
    </message>
    <message>
        <source>The database file %1 cannot be opened. Check that it exists and can be read.</source>
        <translation>The database file %1 cannot be opened. Check that it exists and can be read.</translation>
    </message>
    <message>
        <source>The database at %1 cannot be reached. Check that it is running, then try again.</source>
        <translation>The database at %1 cannot be reached. Check that it is running, then try again.</translation>
    </message>
    <message>
        <source>This connection is read-only: the database refused a change.</source>
        <translation>This connection is read-only: the database refused a change.</translation>
    </message>
    <message>
        <source>The database user of %1 is not allowed to do this.</source>
        <translation>The database user of %1 is not allowed to do this.</translation>
    </message>
    <message>
        <source>The database at %1 has no Lantern tables yet (run “lanternd migrate” first).</source>
        <translation>The database at %1 has no Lantern tables yet (run “lanternd migrate” first).</translation>
    </message>
    <message>
        <source>The database refused the request.</source>
        <translation>The database refused the request.</translation>
    </message>
    <message>
        <source>Something went wrong while talking to Redis or the database.</source>
        <translation>Something went wrong while talking to Redis or the database.</translation>
    </message>
    <message>
        <source>There is no database file at %1 yet.</source>
        <translation>There is no database file at %1 yet.</translation>
    </message>
    <message>
        <source>Redis at %1 is loading its dataset after a restart. Try again in a moment.</source>
        <translation>Redis at %1 is loading its dataset after a restart. Try again in a moment.</translation>
    </message>
    <message>
        <source>Redis at %1 is busy running a script. Try again in a moment.</source>
        <translation>Redis at %1 is busy running a script. Try again in a moment.</translation>
    </message>
    <message>
        <source>Redis at %1 is a replica that lost its link to the primary. Try again in a moment.</source>
        <translation>Redis at %1 is a replica that lost its link to the primary. Try again in a moment.</translation>
    </message>
    <message>
        <source>The Redis cluster of %1 cannot serve this request right now. Try again in a moment.</source>
        <translation>The Redis cluster of %1 cannot serve this request right now. Try again in a moment.</translation>
    </message>
    <message>
        <source>is loading</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: it is reading its data after a restart.</extracomment>
        <translation>is loading</translation>
    </message>
    <message>
        <source>is busy</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: a script is running too long.</extracomment>
        <translation>is busy</translation>
    </message>
    <message>
        <source>is unavailable</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: it answers but cannot serve for now.</extracomment>
        <translation>is unavailable</translation>
    </message>
    <message>
        <source>down</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: it does not answer.</extracomment>
        <translation>down</translation>
    </message>
    <message>
        <source>cluster failing</source>
        <translation>cluster failing</translation>
    </message>
    <message>
        <source>The Redis Cluster reports cluster_state:%1: %2 of 16384 slots are served, so commands on the others are refused (CLUSTERDOWN). A master and its replicas may be down.</source>
        <translation>The Redis Cluster reports cluster_state:%1: %2 of 16384 slots are served, so commands on the others are refused (CLUSTERDOWN). A master and its replicas may be down.</translation>
    </message>
    <message>
        <source>TLS to Redis at %1 failed: the server %2</source>
        <translation>TLS to Redis at %1 failed: the server %2</translation>
    </message>
    <message>
        <source>TLS refused</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: its certificate or TLS set-up was refused.</extracomment>
        <translation>TLS refused</translation>
    </message>
    <message>
        <source>The account %1 may not do this: the servers refused it (its rights may have changed since the console read them).</source>
        <translation>The account %1 may not do this: the servers refused it (its rights may have changed since the console read them).</translation>
    </message>
    <message>
        <source>%1 · host key %2</source>
        <translation>%1 · host key %2</translation>
    </message>
    <message>
        <source>Not tested: the SSH tunnel is not open.</source>
        <translation>Not tested: the SSH tunnel is not open.</translation>
    </message>
    <message>
        <source>SSH tunnel down</source>
        <translation>SSH tunnel down</translation>
    </message>
    <message>
        <source>“%1” at %2</source>
        <translation>“%1” at %2</translation>
    </message>
    <message>
        <source>%1: the servers refused it (its rights may have changed since the console read them).</source>
        <translation>%1: the servers refused it (its rights may have changed since the console read them).</translation>
    </message>
</context>
<context>
    <name>lantern::ConnectionProfile</name>
    <message>
        <source>A profile name is 1 to 64 letters, digits, “_”, “.” or “-”.</source>
        <translation>A profile name is 1 to 64 letters, digits, “_”, “.” or “-”.</translation>
    </message>
    <message>
        <source>The profile needs an SQL URL, such as mysql://user@host:3306/lantern or sqlite:///path/lantern.db.</source>
        <translation>The profile needs an SQL URL, such as mysql://user@host:3306/lantern or sqlite:///path/lantern.db.</translation>
    </message>
    <message>
        <source>The key prefix cannot be empty (the default is “lt:”).</source>
        <translation>The key prefix cannot be empty (the default is “lt:”).</translation>
    </message>
    <message>
        <source>“%1” is not a time zone; use a name such as Asia/Shanghai.</source>
        <translation>“%1” is not a time zone; use a name such as Asia/Shanghai.</translation>
    </message>
    <message>
        <source>the profile&apos;s verify mode</source>
        <translation>the profile&apos;s verify mode</translation>
    </message>
    <message>
        <source>Sentinel credentials are for a Redis found through Sentinel (a redis-sentinel:// URL).</source>
        <translation>Sentinel credentials are for a Redis found through Sentinel (a redis-sentinel:// URL).</translation>
    </message>
    <message>
        <source>“%1” is not a way to log in to SSH: agent, key or password.</source>
        <translation>“%1” is not a way to log in to SSH: agent, key or password.</translation>
    </message>
    <message>
        <source>The SSH port is 1 to 65535 (usually 22).</source>
        <translation>The SSH port is 1 to 65535 (usually 22).</translation>
    </message>
    <message>
        <source>The SSH tunnel needs the user to log in as.</source>
        <translation>The SSH tunnel needs the user to log in as.</translation>
    </message>
    <message>
        <source>Choose the SSH private key file (or log in with the agent or a password).</source>
        <translation>Choose the SSH private key file (or log in with the agent or a password).</translation>
    </message>
</context>
<context>
    <name>lantern::ConnectionProfileModel</name>
    <message>
        <source>in use</source>
        <translation>in use</translation>
    </message>
    <message>
        <source>read-only</source>
        <translation>read-only</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>, </source>
        <translation>, </translation>
    </message>
    <message>
        <source>Redis: %1
SQL: %2
Key prefix: %3</source>
        <translation>Redis: %1
SQL: %2
Key prefix: %3</translation>
    </message>
</context>
<context>
    <name>lantern::ConsoleAlertMonitor</name>
    <message numerus="yes">
        <source>%1 and %n more</source>
        <translation>
            <numerusform>%1 and %n more</numerusform>
            <numerusform>%1 and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n dead letter(s) set aside: they need a person.</source>
        <translation>
            <numerusform>%n dead letter set aside: it needs a person.</numerusform>
            <numerusform>%n dead letters set aside: they need a person.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n worker(s) stopped beating: %1. What they hold waits for a recovery.</source>
        <translation>
            <numerusform>%n worker stopped beating: %1. What it holds waits for a recovery.</numerusform>
            <numerusform>%n workers stopped beating: %1. What they hold waits for a recovery.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The ledger does not balance for %n campaign(s): %1.</source>
        <translation>
            <numerusform>The ledger does not balance for %n campaign: %1.</numerusform>
            <numerusform>The ledger does not balance for %n campaigns: %1.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The backlog has grown for %n minute(s) and holds %1 entries.</source>
        <translation>
            <numerusform>The backlog has grown for %n minute and holds %1 entries.</numerusform>
            <numerusform>The backlog has grown for %n minutes and holds %1 entries.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lantern::ConsoleManual</name>
    <message>
        <source>operations console for daily check-in and red-envelope campaigns</source>
        <translation>operations console for daily check-in and red-envelope campaigns</translation>
    </message>
    <message>
        <source>Support staff look users up and grant make-ups, campaign managers run envelope campaigns, and on-call engineers watch queues and workers and run recovery. With --screenshot it renders one view to a PNG file and exits, which needs no display with QT_QPA_PLATFORM=offscreen.</source>
        <translation>Support staff look users up and grant make-ups, campaign managers run envelope campaigns, and on-call engineers watch queues and workers and run recovery. With --screenshot it renders one view to a PNG file and exits, which needs no display with QT_QPA_PLATFORM=offscreen.</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>Options</translation>
    </message>
    <message>
        <source>Prints this manual page as roff.</source>
        <translation>Prints this manual page as roff.</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>Environment</translation>
    </message>
    <message>
        <source>Every setting option as LANTERN_ and its name in upper case with _ for -; an option on the command line wins. LANTERN_REDIS or LANTERN_DB connects to servers instead of the sandbox.</source>
        <translation>Every setting option as LANTERN_ and its name in upper case with _ for -; an option on the command line wins. LANTERN_REDIS or LANTERN_DB connects to servers instead of the sandbox.</translation>
    </message>
    <message>
        <source>The profile file, or the named profile, to read settings from.</source>
        <translation>The profile file, or the named profile, to read settings from.</translation>
    </message>
    <message>
        <source>The redis-server binary the sandbox starts (default: redis-server on the PATH).</source>
        <translation>The redis-server binary the sandbox starts (default: redis-server on the PATH).</translation>
    </message>
    <message>
        <source>Qt&apos;s platform plugin; offscreen renders screenshots without a display.</source>
        <translation>Qt&apos;s platform plugin; offscreen renders screenshots without a display.</translation>
    </message>
    <message>
        <source>Exit status</source>
        <translation>Exit status</translation>
    </message>
    <message>
        <source>The window was closed, or the screenshot was saved.</source>
        <translation>The window was closed, or the screenshot was saved.</translation>
    </message>
    <message>
        <source>The screenshot could not be taken or written, or the command line was not understood.</source>
        <translation>The screenshot could not be taken or written, or the command line was not understood.</translation>
    </message>
    <message>
        <source>Invalid input, such as an unknown view or a malformed date; the message is on stderr.</source>
        <translation>Invalid input, such as an unknown view or a malformed date; the message is on stderr.</translation>
    </message>
    <message>
        <source>See also</source>
        <translation>See also</translation>
    </message>
    <message>
        <source>lanternd(1)</source>
        <translation>lanternd(1)</translation>
    </message>
</context>
<context>
    <name>lantern::DataNodes</name>
    <message>
        <source>Redis at %1 answered ROLE with %2</source>
        <translation>Redis at %1 answered ROLE with %2</translation>
    </message>
    <message>
        <source>%1 (master)</source>
        <translation>%1 (master)</translation>
    </message>
    <message>
        <source>%1 (replica)</source>
        <translation>%1 (replica)</translation>
    </message>
    <message>
        <source>Redis at %1 answers ROLE as %2, not as a master or a replica of one</source>
        <translation>Redis at %1 answers ROLE as %2, not as a master or a replica of one</translation>
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
    <message>
        <source>--db-ca, --db-cert and --db-key are for MySQL and MariaDB, not SQLite</source>
        <translation>--db-ca, --db-cert and --db-key are for MySQL and MariaDB, not SQLite</translation>
    </message>
    <message>
        <source>--db-key needs its certificate: give --db-cert too</source>
        <translation>--db-key needs its certificate: give --db-cert too</translation>
    </message>
    <message>
        <source>the TLS file name %1 holds &apos;;&apos; or &apos;=&apos;, which the MySQL driver&apos;s options cannot carry</source>
        <translation>the TLS file name %1 holds &apos;;&apos; or &apos;=&apos;, which the MySQL driver&apos;s options cannot carry</translation>
    </message>
    <message>
        <source>cannot read the database TLS file %1</source>
        <translation>cannot read the database TLS file %1</translation>
    </message>
</context>
<context>
    <name>lantern::DeadLetterModel</name>
    <message>
        <source>Payout</source>
        <translation>Payout</translation>
    </message>
    <message>
        <source>Campaign %1, envelope %2: %3 to user %4</source>
        <translation>Campaign %1, envelope %2: %3 to user %4</translation>
    </message>
    <message>
        <source>Make-up</source>
        <translation>Make-up</translation>
    </message>
    <message>
        <source>Check-in</source>
        <translation>Check-in</translation>
    </message>
    <message numerus="yes">
        <source>User %1 on %2, %n point(s)</source>
        <translation>
            <numerusform>User %1 on %2, %n point</numerusform>
            <numerusform>User %1 on %2, %n points</numerusform>
        </translation>
    </message>
    <message>
        <source>Unreadable</source>
        <translation>Unreadable</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Kind</translation>
    </message>
    <message>
        <source>Entry</source>
        <translation>Entry</translation>
    </message>
    <message>
        <source>Queued at</source>
        <translation>Queued at</translation>
    </message>
    <message>
        <source>no reason given</source>
        <translation>no reason given</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>not recorded</translation>
    </message>
    <message>
        <source>Why it was set aside</source>
        <translation>Why it was set aside</translation>
    </message>
    <message>
        <source>Tries</source>
        <translation>Tries</translation>
    </message>
    <message>
        <source>Set aside at</source>
        <translation>Set aside at</translation>
    </message>
    <message>
        <source>Entry (as stored)</source>
        <extracomment>The CSV column holding each dead letter byte for byte.</extracomment>
        <translation>Entry (as stored)</translation>
    </message>
</context>
<context>
    <name>lantern::DeadLetters</name>
    <message>
        <source>unexpected reply of deadletter_move.lua</source>
        <translation>unexpected reply of deadletter_move.lua</translation>
    </message>
    <message>
        <source>the edited entry is not a task a worker of %1 can read</source>
        <translation>the edited entry is not a task a worker of %1 can read</translation>
    </message>
    <message>
        <source>no dead-letter list called &apos;%1&apos;: expected checkin:&lt;shard&gt; or payout:&lt;campaign id&gt; (payout:&lt;campaign id&gt;.&lt;n&gt; for a sub-pool)</source>
        <translation>no dead-letter list called &apos;%1&apos;: expected checkin:&lt;shard&gt; or payout:&lt;campaign id&gt; (payout:&lt;campaign id&gt;.&lt;n&gt; for a sub-pool)</translation>
    </message>
    <message>
        <source>unexpected reply of deadletter_take.lua</source>
        <translation>unexpected reply of deadletter_take.lua</translation>
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
    <name>lantern::FeatureSwitches</name>
    <message>
        <source>unknown feature &apos;%1&apos;: expected %2</source>
        <translation>unknown feature &apos;%1&apos;: expected %2</translation>
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
            <numerusform>%1 (gave up after %n attempt)</numerusform>
            <numerusform>%1 (gave up after %n attempts)</numerusform>
        </translation>
    </message>
    <message>
        <source>invalid payout connections %1: expected 1 to %2</source>
        <translation>invalid payout connections %1: expected 1 to %2</translation>
    </message>
</context>
<context>
    <name>lantern::HttpRequestParser</name>
    <message>
        <source>request headers too large: at most %1 bytes</source>
        <translation>request headers too large: at most %1 bytes</translation>
    </message>
    <message>
        <source>malformed request: %1</source>
        <translation>malformed request: %1</translation>
    </message>
    <message>
        <source>malformed request: whitespace in a header name</source>
        <translation>malformed request: whitespace in a header name</translation>
    </message>
    <message>
        <source>malformed request: more than one Authorization header</source>
        <translation>malformed request: more than one Authorization header</translation>
    </message>
    <message>
        <source>HTTP version %1.%2 is not supported: use HTTP/1.1</source>
        <translation>HTTP version %1.%2 is not supported: use HTTP/1.1</translation>
    </message>
    <message>
        <source>CONNECT is not supported</source>
        <translation>CONNECT is not supported</translation>
    </message>
    <message>
        <source>protocol upgrades are not supported</source>
        <translation>protocol upgrades are not supported</translation>
    </message>
    <message>
        <source>request body too large: at most %1 bytes</source>
        <translation>request body too large: at most %1 bytes</translation>
    </message>
    <message>
        <source>malformed request line: it must be the method, one space, the target, one space and the HTTP version</source>
        <translation>malformed request line: it must be the method, one space, the target, one space and the HTTP version</translation>
    </message>
    <message>
        <source>malformed chunked body: a chunk extension must be ;name or ;name=value, the value a token or a quoted string</source>
        <translation>malformed chunked body: a chunk extension must be ;name or ;name=value, the value a token or a quoted string</translation>
    </message>
    <message>
        <source>malformed chunked body: a chunk-size line and a chunk&apos;s data must end in CRLF</source>
        <translation>malformed chunked body: a chunk-size line and a chunk&apos;s data must end in CRLF</translation>
    </message>
    <message>
        <source>malformed chunked body: a chunk-size line with its extensions is at most %1 bytes</source>
        <translation>malformed chunked body: a chunk-size line with its extensions is at most %1 bytes</translation>
    </message>
</context>
<context>
    <name>lantern::HttpServer</name>
    <message>
        <source>cannot listen on %1:%2: %3</source>
        <translation>cannot listen on %1:%2: %3</translation>
    </message>
    <message>
        <source>invalid --listen &apos;%1&apos;: expected HOST:PORT with an IP address, e.g. 127.0.0.1:8080</source>
        <translation>invalid --listen &apos;%1&apos;: expected HOST:PORT with an IP address, e.g. 127.0.0.1:8080</translation>
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
    <message>
        <source>invalid dense uid bound %1: expected 0..2^40</source>
        <translation>invalid dense uid bound %1: expected 0..2^40</translation>
    </message>
</context>
<context>
    <name>lantern::LayoutMigration</name>
    <message>
        <source>%1 is in slot %2 but the uid&apos;s blocks are in slot %3 (shard %4): its shard tag was written with another shard count, so it cannot move in one step on a Redis Cluster; migrate it on a single server</source>
        <translation>%1 is in slot %2 but the uid&apos;s blocks are in slot %3 (shard %4): its shard tag was written with another shard count, so it cannot move in one step on a Redis Cluster; migrate it on a single server</translation>
    </message>
</context>
<context>
    <name>lantern::LedgerModel</name>
    <message>
        <source>Check-in reward</source>
        <translation>Check-in reward</translation>
    </message>
    <message>
        <source>When</source>
        <translation>When</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>Points</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>Source</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>Reference</translation>
    </message>
</context>
<context>
    <name>lantern::LuaScript</name>
    <message>
        <source>Redis computed a different SHA1 for script %1</source>
        <translation>Redis computed a different SHA1 for script %1</translation>
    </message>
    <message>
        <source>Redis %1 does not hold Lantern&apos;s script %2 (after a restart or SCRIPT FLUSH) and this account may not load it: start a worker or the API, or run lanternd access install, which load the scripts</source>
        <translation>Redis %1 does not hold Lantern&apos;s script %2 (after a restart or SCRIPT FLUSH) and this account may not load it: start a worker or the API, or run lanternd access install, which load the scripts</translation>
    </message>
</context>
<context>
    <name>lantern::MasterScan</name>
    <message>
        <source>unexpected SCAN reply from %1</source>
        <translation>unexpected SCAN reply from %1</translation>
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
    <name>lantern::MonthStatsModel</name>
    <message>
        <source>Day</source>
        <translation>Day</translation>
    </message>
    <message>
        <source>Checked in</source>
        <translation>Checked in</translation>
    </message>
    <message>
        <source>Make-ups</source>
        <translation>Make-ups</translation>
    </message>
</context>
<context>
    <name>lantern::PayoutDispatcher</name>
    <message numerus="yes">
        <source>the worker stopped while %n payout(s) were in flight</source>
        <translation>
            <numerusform>the worker stopped while %n payout was in flight</numerusform>
            <numerusform>the worker stopped while %n payouts were in flight</numerusform>
        </translation>
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
    <message>
        <source>invalid %1 &apos;%2&apos;: expected a whole number from 1 to %3</source>
        <translation>invalid %1 &apos;%2&apos;: expected a whole number from 1 to %3</translation>
    </message>
</context>
<context>
    <name>lantern::PayoutRateLimit</name>
    <message>
        <source>invalid payout rate %1: expected more than 0 and at most %2 calls a second</source>
        <translation>invalid payout rate %1: expected more than 0 and at most %2 calls a second</translation>
    </message>
    <message>
        <source>invalid payout burst %1: expected 0 or more</source>
        <translation>invalid payout burst %1: expected 0 or more</translation>
    </message>
    <message>
        <source>unexpected reply of payout_rate.lua</source>
        <translation>unexpected reply of payout_rate.lua</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected calls per second, a number above 0 and at most %3, such as 200</source>
        <translation>invalid %1 &apos;%2&apos;: expected calls per second, a number above 0 and at most %3, such as 200</translation>
    </message>
</context>
<context>
    <name>lantern::ProfileStore</name>
    <message>
        <source>A profile name is 1 to 64 letters, digits, “_”, “.” or “-”.</source>
        <translation>A profile name is 1 to 64 letters, digits, “_”, “.” or “-”.</translation>
    </message>
    <message>
        <source>Cannot create the folder %1 for connection profiles.</source>
        <translation>Cannot create the folder %1 for connection profiles.</translation>
    </message>
    <message>
        <source>Cannot write the profile file %1.</source>
        <translation>Cannot write the profile file %1.</translation>
    </message>
</context>
<context>
    <name>lantern::QueueFormat</name>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 d %2 h</translation>
    </message>
    <message>
        <source>Check-in log</source>
        <translation>Check-in log</translation>
    </message>
    <message>
        <source>Payouts, campaign %1</source>
        <translation>Payouts, campaign %1</translation>
    </message>
    <message>
        <source>Check-in log, shard %1</source>
        <translation>Check-in log, shard %1</translation>
    </message>
</context>
<context>
    <name>lantern::QueueJobRunner</name>
    <message>
        <source>Another action is still running; wait for it or cancel it first.</source>
        <translation>Another action is still running; wait for it or cancel it first.</translation>
    </message>
</context>
<context>
    <name>lantern::QueueService</name>
    <message>
        <source>an operator name is required</source>
        <translation>an operator name is required</translation>
    </message>
    <message numerus="yes">
        <source>%n were no longer there (taken meanwhile).</source>
        <translation>
            <numerusform>%n was no longer there (taken meanwhile).</numerusform>
            <numerusform>%n were no longer there (taken meanwhile).</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelled before the end; the rest is untouched.</source>
        <translation>Cancelled before the end; the rest is untouched.</translation>
    </message>
    <message numerus="yes">
        <source>%n entry(s) of “%1” put back on the queue.</source>
        <translation>
            <numerusform>%n entry of “%1” put back on the queue.</numerusform>
            <numerusform>%n entries of “%1” put back on the queue.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entry(s) of “%1” discarded.</source>
        <translation>
            <numerusform>%n entry of “%1” discarded.</numerusform>
            <numerusform>%n entries of “%1” discarded.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n unreadable entry(s) left in the list: a worker could not read them. Edit or discard them.</source>
        <translation>
            <numerusform>%n unreadable entry left in the list: a worker could not read it. Edit or discard it.</numerusform>
            <numerusform>%n unreadable entries left in the list: a worker could not read them. Edit or discard them.</numerusform>
        </translation>
    </message>
    <message>
        <source>The edited entry is back on the queue of “%1”.</source>
        <translation>The edited entry is back on the queue of “%1”.</translation>
    </message>
    <message>
        <source>The entry was no longer in “%1” (taken meanwhile); nothing was queued.</source>
        <translation>The entry was no longer in “%1” (taken meanwhile); nothing was queued.</translation>
    </message>
</context>
<context>
    <name>lantern::QueueTableModel</name>
    <message>
        <source>Queue</source>
        <translation>Queue</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>Waiting</translation>
    </message>
    <message>
        <source>Oldest waits</source>
        <translation>Oldest waits</translation>
    </message>
    <message>
        <source>Dead letters</source>
        <translation>Dead letters</translation>
    </message>
    <message>
        <source>Click to open these dead letters</source>
        <translation>Click to open these dead letters</translation>
    </message>
    <message>
        <source>Oldest waits (s)</source>
        <translation>Oldest waits (s)</translation>
    </message>
</context>
<context>
    <name>lantern::QueueWorkerModel</name>
    <message numerus="yes">
        <source>Its heartbeat is renewed every few seconds and expires after %n s.</source>
        <translation>
            <numerusform>Its heartbeat is renewed every few seconds and expires after %n s.</numerusform>
            <numerusform>Its heartbeat is renewed every few seconds and expires after %n s.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No heartbeat for more than %n s: what it holds waits for recovery (see Recovery).</source>
        <translation>
            <numerusform>No heartbeat for more than %n s: what it holds waits for recovery (see Recovery).</numerusform>
            <numerusform>No heartbeat for more than %n s: what it holds waits for recovery (see Recovery).</numerusform>
        </translation>
    </message>
    <message>
        <source>Alive</source>
        <translation>Alive</translation>
    </message>
    <message>
        <source>Dead</source>
        <translation>Dead</translation>
    </message>
    <message>
        <source>%1 ago</source>
        <translation>%1 ago</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>expired</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>Worker</translation>
    </message>
    <message>
        <source>State</source>
        <translation>State</translation>
    </message>
    <message>
        <source>Last heartbeat</source>
        <translation>Last heartbeat</translation>
    </message>
    <message>
        <source>In flight</source>
        <translation>In flight</translation>
    </message>
    <message>
        <source>Tasks in its backup lists: claimed, not yet settled.</source>
        <translation>Tasks in its backup lists: claimed, not yet settled.</translation>
    </message>
    <message>
        <source>Payouts the provider confirmed per second, between the worker&apos;s last two heartbeats.</source>
        <translation>Payouts the provider confirmed per second, between the worker&apos;s last two heartbeats.</translation>
    </message>
    <message>
        <source>Calls to the payout provider waiting for an answer at its last heartbeat (at most lanternd work --in-flight).</source>
        <translation>Calls to the payout provider waiting for an answer at its last heartbeat (at most lanternd work --in-flight).</translation>
    </message>
    <message>
        <source>Calls that did not come back paid (timeouts, 5xx, refusals), of %1 calls since the worker started; each is retried with the same idempotency key.</source>
        <translation>Calls that did not come back paid (timeouts, 5xx, refusals), of %1 calls since the worker started; each is retried with the same idempotency key.</translation>
    </message>
    <message>
        <source>Payouts/s</source>
        <translation>Payouts/s</translation>
    </message>
    <message>
        <source>Calls out</source>
        <translation>Calls out</translation>
    </message>
    <message>
        <source>Provider errors</source>
        <translation>Provider errors</translation>
    </message>
    <message>
        <source>Last heartbeat (s ago)</source>
        <translation>Last heartbeat (s ago)</translation>
    </message>
</context>
<context>
    <name>lantern::RecoveryLedgerModel</name>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Balanced</source>
        <translation>Balanced</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>Waiting</translation>
    </message>
    <message numerus="yes">
        <source>%n violation(s)</source>
        <translation>
            <numerusform>%n violation</numerusform>
            <numerusform>%n violations</numerusform>
        </translation>
    </message>
    <message>
        <source>Every grab has its row and exactly one payout.</source>
        <translation>Every grab has its row and exactly one payout.</translation>
    </message>
    <message numerus="yes">
        <source>%n held by dead workers</source>
        <translation>
            <numerusform>%n held by dead workers</numerusform>
            <numerusform>%n held by dead workers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n queued</source>
        <translation>
            <numerusform>%n queued</numerusform>
            <numerusform>%n queued</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n with live workers</source>
        <translation>
            <numerusform>%n with live workers</numerusform>
            <numerusform>%n with live workers</numerusform>
        </translation>
    </message>
    <message>
        <source>Payouts still on their way: %1.</source>
        <translation>Payouts still on their way: %1.</translation>
    </message>
    <message>
        <source>Campaign</source>
        <translation>Campaign</translation>
    </message>
    <message>
        <source>Ledger check</source>
        <translation>Ledger check</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>Detail</translation>
    </message>
    <message>
        <source>, </source>
        <comment>separator between the items of a list</comment>
        <translation>, </translation>
    </message>
    <message>
        <source>Grabs and payouts judged from the tally the workers keep as they write them (a row changed by hand is counted again); lanternd verify reads every row and compares the tally with them.</source>
        <translation>Grabs and payouts judged from the tally the workers keep as they write them (a row changed by hand is counted again); lanternd verify reads every row and compares the tally with them.</translation>
    </message>
</context>
<context>
    <name>lantern::RecoveryService</name>
    <message>
        <source>an operator name is required</source>
        <translation>an operator name is required</translation>
    </message>
    <message numerus="yes">
        <source>Compensated %n worker(s):</source>
        <translation>
            <numerusform>Compensated %n worker:</numerusform>
            <numerusform>Compensated %n workers:</numerusform>
        </translation>
    </message>
    <message>
        <source>Skipped because their heartbeat came back: %1.</source>
        <translation>Skipped because their heartbeat came back: %1.</translation>
    </message>
    <message numerus="yes">
        <source>Cancelled: %n worker(s) left untouched.</source>
        <translation>
            <numerusform>Cancelled: %n worker left untouched.</numerusform>
            <numerusform>Cancelled: %n workers left untouched.</numerusform>
        </translation>
    </message>
    <message>
        <source>cannot reconcile %1: it is after today</source>
        <translation>cannot reconcile %1: it is after today</translation>
    </message>
    <message>
        <source>, </source>
        <comment>separator between the items of a list</comment>
        <translation>, </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) completed from SQL, %1 re-queued, %2 set aside as unreadable.</source>
        <translation>
            <numerusform>%n task completed from SQL, %1 re-queued, %2 set aside as unreadable.</numerusform>
            <numerusform>%n tasks completed from SQL, %1 re-queued, %2 set aside as unreadable.</numerusform>
        </translation>
    </message>
    <message>
        <source>Rule %1: %2</source>
        <extracomment>One broken rule of the ledger check (DESIGN §4), as the Campaigns view words it too.</extracomment>
        <translation>Rule %1: %2</translation>
    </message>
</context>
<context>
    <name>lantern::RecoveryTaskModel</name>
    <message>
        <source>Heartbeat expired: this worker is gone, and what its backup lists hold waits for compensation.</source>
        <translation>Heartbeat expired: this worker is gone, and what its backup lists hold waits for compensation.</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) held, first %1 shown</source>
        <translation>
            <numerusform>%n task held, first %1 shown</numerusform>
            <numerusform>%n tasks held, first %1 shown</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) held</source>
        <translation>
            <numerusform>%n task held</numerusform>
            <numerusform>%n tasks held</numerusform>
        </translation>
    </message>
    <message>
        <source>Forget the worker</source>
        <translation>Forget the worker</translation>
    </message>
    <message>
        <source>%1 complete, %2 re-queue</source>
        <translation>%1 complete, %2 re-queue</translation>
    </message>
    <message>
        <source>User %1 on %2 (make-up)</source>
        <translation>User %1 on %2 (make-up)</translation>
    </message>
    <message>
        <source>User %1 on %2</source>
        <translation>User %1 on %2</translation>
    </message>
    <message>
        <source>Envelope %1: %2 to user %3</source>
        <translation>Envelope %1: %2 to user %3</translation>
    </message>
    <message>
        <source>Unreadable entry</source>
        <translation>Unreadable entry</translation>
    </message>
    <message>
        <source>Log row saved</source>
        <translation>Log row saved</translation>
    </message>
    <message>
        <source>No log row</source>
        <translation>No log row</translation>
    </message>
    <message>
        <source>Grab row saved</source>
        <translation>Grab row saved</translation>
    </message>
    <message>
        <source>No grab row</source>
        <translation>No grab row</translation>
    </message>
    <message>
        <source>No payout row</source>
        <translation>No payout row</translation>
    </message>
    <message>
        <source>Paid</source>
        <translation>Paid</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Pending</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Failed</translation>
    </message>
    <message>
        <source>provider paid %1</source>
        <translation>provider paid %1</translation>
    </message>
    <message>
        <source>Complete (done in SQL)</source>
        <translation>Complete (done in SQL)</translation>
    </message>
    <message>
        <source>Re-queue</source>
        <translation>Re-queue</translation>
    </message>
    <message>
        <source>Dead-letter</source>
        <translation>Dead-letter</translation>
    </message>
    <message>
        <source>Worker / task</source>
        <translation>Worker / task</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>Queue</translation>
    </message>
    <message>
        <source>In SQL</source>
        <translation>In SQL</translation>
    </message>
    <message>
        <source>Payout</source>
        <translation>Payout</translation>
    </message>
    <message>
        <source>Compensation will</source>
        <translation>Compensation will</translation>
    </message>
</context>
<context>
    <name>lantern::RedisClient</name>
    <message>
        <source>expected an integer reply from Redis</source>
        <translation>expected an integer reply from Redis</translation>
    </message>
    <message>
        <source>expected a string reply from Redis</source>
        <translation>expected a string reply from Redis</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>timed out</translation>
    </message>
    <message>
        <source>failed while sending</source>
        <translation>failed while sending</translation>
    </message>
    <message>
        <source>failed while reading a reply</source>
        <translation>failed while reading a reply</translation>
    </message>
    <message>
        <source>read-only connection (setting read-only): %1 was not sent to %2; only read commands are allowed</source>
        <translation>read-only connection (setting read-only): %1 was not sent to %2; only read commands are allowed</translation>
    </message>
    <message>
        <source>Redis at %1:%2 is loading its dataset</source>
        <translation>Redis at %1:%2 is loading its dataset</translation>
    </message>
    <message>
        <source>Redis at %1:%2 is busy running a script</source>
        <translation>Redis at %1:%2 is busy running a script</translation>
    </message>
    <message>
        <source>Redis at %1:%2 is a replica that lost its link to the primary</source>
        <translation>Redis at %1:%2 is a replica that lost its link to the primary</translation>
    </message>
    <message>
        <source>the Redis cluster of %1:%2 is down</source>
        <translation>the Redis cluster of %1:%2 is down</translation>
    </message>
    <message>
        <source>Redis at %1:%2 is moving the keys of this request to another node</source>
        <translation>Redis at %1:%2 is moving the keys of this request to another node</translation>
    </message>
    <message>
        <source>Redis at %1 answered CLUSTER SLOTS with a reply of an unexpected shape</source>
        <translation>Redis at %1 answered CLUSTER SLOTS with a reply of an unexpected shape</translation>
    </message>
    <message>
        <source>no seed of the Redis Cluster %1 answered: %2</source>
        <translation>no seed of the Redis Cluster %1 answered: %2</translation>
    </message>
    <message>
        <source>invalid Redis URL %1: a seed list names the nodes of a Redis Cluster, but %2 is not a cluster node (%3)</source>
        <translation>invalid Redis URL %1: a seed list names the nodes of a Redis Cluster, but %2 is not a cluster node (%3)</translation>
    </message>
    <message>
        <source>Redis at %1 answered CLUSTER SLOTS with %2</source>
        <translation>Redis at %1 answered CLUSTER SLOTS with %2</translation>
    </message>
    <message>
        <source>Redis at %1 knows no master of the cluster</source>
        <translation>Redis at %1 knows no master of the cluster</translation>
    </message>
    <message>
        <source>no node of the Redis Cluster %1 answered: %2</source>
        <translation>no node of the Redis Cluster %1 answered: %2</translation>
    </message>
    <message>
        <source>a MULTI without its EXEC in the same pipeline cannot be routed on a Redis Cluster; nothing was sent</source>
        <translation>a MULTI without its EXEC in the same pipeline cannot be routed on a Redis Cluster; nothing was sent</translation>
    </message>
    <message>
        <source>%1 has no cluster-wide answer on a Redis Cluster (each node answers for its own keys only); nothing was sent</source>
        <translation>%1 has no cluster-wide answer on a Redis Cluster (each node answers for its own keys only); nothing was sent</translation>
    </message>
    <message>
        <source>%1 inside MULTI ... EXEC would have to run on every master of the Redis Cluster; nothing was sent</source>
        <translation>%1 inside MULTI ... EXEC would have to run on every master of the Redis Cluster; nothing was sent</translation>
    </message>
    <message>
        <source>%1 names keys in different slots of the Redis Cluster (&apos;%2&apos; in slot %3, &apos;%4&apos; in slot %5): a command, a transaction or a script runs within one slot; nothing was sent</source>
        <translation>%1 names keys in different slots of the Redis Cluster (&apos;%2&apos; in slot %3, &apos;%4&apos; in slot %5): a command, a transaction or a script runs within one slot; nothing was sent</translation>
    </message>
    <message>
        <source>invalid Redis URL: %1 is a Redis Cluster node, and a cluster has only database 0; leave the database out of the URL</source>
        <translation>invalid Redis URL: %1 is a Redis Cluster node, and a cluster has only database 0; leave the database out of the URL</translation>
    </message>
    <message>
        <source>Redis at %1 is unreachable: %2</source>
        <translation>Redis at %1 is unreachable: %2</translation>
    </message>
    <message>
        <source>Redis at %1 did not complete the TLS handshake within %2 ms; if this is a plaintext port, connect with redis://</source>
        <translation>Redis at %1 did not complete the TLS handshake within %2 ms; if this is a plaintext port, connect with redis://</translation>
    </message>
    <message>
        <source>Redis at %1 is not connected</source>
        <translation>Redis at %1 is not connected</translation>
    </message>
    <message>
        <source>Redis at %1 failed while sending: %2</source>
        <translation>Redis at %1 failed while sending: %2</translation>
    </message>
    <message>
        <source>Redis at %1 failed while reading a reply: %2</source>
        <translation>Redis at %1 failed while reading a reply: %2</translation>
    </message>
    <message>
        <source>invalid Redis URL: %1 has no database %2 (Redis at %3)</source>
        <translation>invalid Redis URL: %1 has no database %2 (Redis at %3)</translation>
    </message>
    <message>
        <source>Redis at %1 rejected the connection: %2</source>
        <translation>Redis at %1 rejected the connection: %2</translation>
    </message>
    <message>
        <source>%1 answered %2</source>
        <translation>%1 answered %2</translation>
    </message>
    <message>
        <source>invalid Redis URL %1: no Redis Sentinel knows a master named &apos;%2&apos; (asked %3)</source>
        <translation>invalid Redis URL %1: no Redis Sentinel knows a master named &apos;%2&apos; (asked %3)</translation>
    </message>
    <message>
        <source>no Redis Sentinel of %1 answered: %2</source>
        <translation>no Redis Sentinel of %1 answered: %2</translation>
    </message>
    <message>
        <source>no Redis Sentinel of %1 named the master &apos;%2&apos;: %3 did not know it; %4</source>
        <translation>no Redis Sentinel of %1 named the master &apos;%2&apos;: %3 did not know it; %4</translation>
    </message>
    <message>
        <source>Redis at %1, which the sentinels name as the master &apos;%2&apos;, answers ROLE as %3; a failover may be under way</source>
        <translation>Redis at %1, which the sentinels name as the master &apos;%2&apos;, answers ROLE as %3; a failover may be under way</translation>
    </message>
    <message>
        <source>Redis at %1 is no longer the master &apos;%2&apos; (a Sentinel failover); the next connection asks the sentinels again</source>
        <translation>Redis at %1 is no longer the master &apos;%2&apos; (a Sentinel failover); the next connection asks the sentinels again</translation>
    </message>
    <message>
        <source>answered with TLS: this port speaks TLS only; connect with rediss://</source>
        <translation>answered with TLS: this port speaks TLS only; connect with rediss://</translation>
    </message>
    <message>
        <source>closed the connection before answering; if this is its TLS port, connect with rediss://</source>
        <translation>closed the connection before answering; if this is its TLS port, connect with rediss://</translation>
    </message>
    <message>
        <source>closed the connection</source>
        <translation>closed the connection</translation>
    </message>
    <message>
        <source>failed while reading a reply: %1</source>
        <translation>failed while reading a reply: %1</translation>
    </message>
    <message>
        <source>failed while sending: %1</source>
        <translation>failed while sending: %1</translation>
    </message>
    <message>
        <source>Redis at %1 %2</source>
        <translation>Redis at %1 %2</translation>
    </message>
    <message>
        <source>cannot start TLS: %1</source>
        <translation>cannot start TLS: %1</translation>
    </message>
    <message>
        <source>failed during the TLS handshake</source>
        <translation>failed during the TLS handshake</translation>
    </message>
    <message>
        <source>sent no certificate</source>
        <translation>sent no certificate</translation>
    </message>
    <message>
        <source>closed the connection right after the TLS handshake%1</source>
        <translation>closed the connection right after the TLS handshake%1</translation>
    </message>
    <message>
        <source> (does it ask for a client certificate? then give --redis-cert and --redis-key)</source>
        <translation> (does it ask for a client certificate? then give --redis-cert and --redis-key)</translation>
    </message>
    <message>
        <source> (did it refuse the client certificate %1?)</source>
        <translation> (did it refuse the client certificate %1?)</translation>
    </message>
    <message>
        <source>answered without TLS: this port does not speak TLS; connect with redis://, or to the server&apos;s tls-port</source>
        <translation>answered without TLS: this port does not speak TLS; connect with redis://, or to the server&apos;s tls-port</translation>
    </message>
    <message>
        <source>asks for a client certificate (mutual TLS): give one with --redis-cert and --redis-key</source>
        <translation>asks for a client certificate (mutual TLS): give one with --redis-cert and --redis-key</translation>
    </message>
    <message>
        <source>refused the client certificate %1: %2</source>
        <translation>refused the client certificate %1: %2</translation>
    </message>
    <message>
        <source>closed the connection during the TLS handshake</source>
        <translation>closed the connection during the TLS handshake</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>TLS error %1</source>
        <translation>TLS error %1</translation>
    </message>
    <message>
        <source>Redis at %1 sent a reply that cannot be read: %2</source>
        <translation>Redis at %1 sent a reply that cannot be read: %2</translation>
    </message>
    <message>
        <source>an unreadable date</source>
        <translation>an unreadable date</translation>
    </message>
    <message>
        <source>%1, certificate %2, valid until %3, verify %4</source>
        <translation>%1, certificate %2, valid until %3, verify %4</translation>
    </message>
    <message>
        <source>presented a certificate that expired on %1 (%2)</source>
        <translation>presented a certificate that expired on %1 (%2)</translation>
    </message>
    <message>
        <source>presented a certificate whose issuer&apos;s certificate has expired (%1)</source>
        <translation>presented a certificate whose issuer&apos;s certificate has expired (%1)</translation>
    </message>
    <message>
        <source>presented a certificate that is not valid before %1 (%2); check the clocks</source>
        <translation>presented a certificate that is not valid before %1 (%2); check the clocks</translation>
    </message>
    <message>
        <source>presented an untrusted certificate (%1, issued by %2): no CA of this system signed it; give the server&apos;s CA with --redis-ca FILE</source>
        <translation>presented an untrusted certificate (%1, issued by %2): no CA of this system signed it; give the server&apos;s CA with --redis-ca FILE</translation>
    </message>
    <message>
        <source>presented an untrusted certificate (%1, issued by %2): the CA in %3 did not sign it</source>
        <translation>presented an untrusted certificate (%1, issued by %2): the CA in %3 did not sign it</translation>
    </message>
    <message>
        <source>presented a certificate that cannot be trusted (%1): %2</source>
        <translation>presented a certificate that cannot be trusted (%1): %2</translation>
    </message>
    <message>
        <source>presented a certificate for %1, but was reached as %2: connect by one of the certificate&apos;s names, name it with --redis-sni, or check the chain only with --redis-verify ca</source>
        <translation>presented a certificate for %1, but was reached as %2: connect by one of the certificate&apos;s names, name it with --redis-sni, or check the chain only with --redis-verify ca</translation>
    </message>
</context>
<context>
    <name>lantern::RedisDurability</name>
    <message>
        <source>Redis writes its AOF to disk once a second (appendfsync everysec): an OS crash can lose about the last second of grabs users were told they won. The ledger pays nobody twice and a repair rebuilds the campaign from SQL, but those users are not paid. Set appendfsync always to lose none.</source>
        <translation>Redis writes its AOF to disk once a second (appendfsync everysec): an OS crash can lose about the last second of grabs users were told they won. The ledger pays nobody twice and a repair rebuilds the campaign from SQL, but those users are not paid. Set appendfsync always to lose none.</translation>
    </message>
    <message>
        <source>Redis leaves flushing its AOF to the OS (appendfsync no): an OS crash can lose about the last 30 seconds of grabs users were told they won. Set appendfsync always to lose none.</source>
        <translation>Redis leaves flushing its AOF to the OS (appendfsync no): an OS crash can lose about the last 30 seconds of grabs users were told they won. Set appendfsync always to lose none.</translation>
    </message>
    <message>
        <source>Redis keeps no AOF (appendonly no): a restart loses every grab since its last snapshot, grabs users were told they won. Set appendonly yes and appendfsync always to lose none.</source>
        <translation>Redis keeps no AOF (appendonly no): a restart loses every grab since its last snapshot, grabs users were told they won. Set appendonly yes and appendfsync always to lose none.</translation>
    </message>
    <message>
        <source>Redis does not say how it persists (CONFIG GET is not allowed): unless it runs appendonly yes with appendfsync always, a crash can lose grabs users were told they won.</source>
        <translation>Redis does not say how it persists (CONFIG GET is not allowed): unless it runs appendonly yes with appendfsync always, a crash can lose grabs users were told they won.</translation>
    </message>
    <message>
        <source>Redis keeps no AOF and takes no snapshots (appendonly no, save &quot;&quot;): a restart loses everything it holds, grabs users were told they won among it. Set appendonly yes and appendfsync always to lose none.</source>
        <translation>Redis keeps no AOF and takes no snapshots (appendonly no, save &quot;&quot;): a restart loses everything it holds, grabs users were told they won among it. Set appendonly yes and appendfsync always to lose none.</translation>
    </message>
</context>
<context>
    <name>lantern::RedisPipe</name>
    <message>
        <source>cannot be resolved: %1</source>
        <translation>cannot be resolved: %1</translation>
    </message>
    <message>
        <source>is unreachable: %1</source>
        <translation>is unreachable: %1</translation>
    </message>
    <message>
        <source>sent a reply nobody asked for</source>
        <translation>sent a reply nobody asked for</translation>
    </message>
    <message>
        <source>did not accept the connection within %1 ms</source>
        <translation>did not accept the connection within %1 ms</translation>
    </message>
    <message>
        <source>did not answer within %1 ms</source>
        <translation>did not answer within %1 ms</translation>
    </message>
    <message>
        <source>%1 names keys in different slots of the Redis Cluster (%2 and %3); nothing was sent</source>
        <translation>%1 names keys in different slots of the Redis Cluster (%2 and %3); nothing was sent</translation>
    </message>
    <message>
        <source>%1 is not sent by lanternd serve on a Redis Cluster; nothing was sent</source>
        <translation>%1 is not sent by lanternd serve on a Redis Cluster; nothing was sent</translation>
    </message>
    <message>
        <source>Redis at %1 %2</source>
        <translation>Redis at %1 %2</translation>
    </message>
    <message>
        <source>did not complete the TLS handshake within %1 ms; if this is a plaintext port, connect with redis://</source>
        <translation>did not complete the TLS handshake within %1 ms; if this is a plaintext port, connect with redis://</translation>
    </message>
</context>
<context>
    <name>lantern::RedisTlsOptions</name>
    <message>
        <source>cannot use %1 %2: %3</source>
        <translation>cannot use %1 %2: %3</translation>
    </message>
    <message>
        <source>OpenSSL cannot make a TLS context: %1</source>
        <translation>OpenSSL cannot make a TLS context: %1</translation>
    </message>
    <message>
        <source>the Redis CA file</source>
        <translation>the Redis CA file</translation>
    </message>
    <message>
        <source>the Redis client certificate</source>
        <translation>the Redis client certificate</translation>
    </message>
    <message>
        <source>the Redis client key</source>
        <translation>the Redis client key</translation>
    </message>
    <message>
        <source>it is not the key of the certificate %1</source>
        <translation>it is not the key of the certificate %1</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected full (chain and host name), ca (chain only) or none</source>
        <translation>invalid %1 &apos;%2&apos;: expected full (chain and host name), ca (chain only) or none</translation>
    </message>
    <message>
        <source>--redis-ca, --redis-cert, --redis-key and --redis-sni are for TLS: use a rediss:// URL</source>
        <translation>--redis-ca, --redis-cert, --redis-key and --redis-sni are for TLS: use a rediss:// URL</translation>
    </message>
    <message>
        <source>--redis-key needs its certificate: give --redis-cert too</source>
        <translation>--redis-key needs its certificate: give --redis-cert too</translation>
    </message>
    <message>
        <source>TLS to %1 checks no certificate (--redis-verify none): anyone on the path can read and change the traffic</source>
        <translation>TLS to %1 checks no certificate (--redis-verify none): anyone on the path can read and change the traffic</translation>
    </message>
</context>
<context>
    <name>lantern::RedisUrl</name>
    <message>
        <source>invalid Redis port in &apos;%1&apos;</source>
        <translation>invalid Redis port in &apos;%1&apos;</translation>
    </message>
    <message>
        <source>invalid Redis database number &apos;%1&apos; in URL</source>
        <translation>invalid Redis database number &apos;%1&apos; in URL</translation>
    </message>
    <message>
        <source>invalid Redis URL &apos;%1&apos;: seed %2 of the list is empty; expected redis://[user:password@]host:port,host:port,...</source>
        <translation>invalid Redis URL &apos;%1&apos;: seed %2 of the list is empty; expected redis://[user:password@]host:port,host:port,...</translation>
    </message>
    <message>
        <source>invalid Redis URL &apos;%1&apos;: a seed list names a Redis Cluster, which has only database 0</source>
        <translation>invalid Redis URL &apos;%1&apos;: a seed list names a Redis Cluster, which has only database 0</translation>
    </message>
    <message>
        <source>invalid Redis URL &apos;%1&apos;: expected redis://[user:password@]host:port[/db] (rediss:// for TLS)</source>
        <translation>invalid Redis URL &apos;%1&apos;: expected redis://[user:password@]host:port[/db] (rediss:// for TLS)</translation>
    </message>
    <message>
        <source>invalid Redis Sentinel URL &apos;%1&apos;: expected redis-sentinel://[user:password@]host:port[,host:port...][/db]#MASTER, naming the master after &apos;#&apos;</source>
        <translation>invalid Redis Sentinel URL &apos;%1&apos;: expected redis-sentinel://[user:password@]host:port[,host:port...][/db]#MASTER, naming the master after &apos;#&apos;</translation>
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
    <name>lantern::SandboxDirectory</name>
    <message>
        <source>The sandbox folder %1 could not be created.</source>
        <translation>The sandbox folder %1 could not be created.</translation>
    </message>
    <message>
        <source>No folder of its own could be made for the sandbox under %1.</source>
        <translation>No folder of its own could be made for the sandbox under %1.</translation>
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
    <message>
        <source>The sandbox worker stopped.</source>
        <translation>The sandbox worker stopped.</translation>
    </message>
</context>
<context>
    <name>lantern::ScheduleWords</name>
    <message>
        <source>No time was changed.</source>
        <translation>No time was changed.</translation>
    </message>
    <message>
        <source>The late limit must be between 1 second and 7 days.</source>
        <translation>The late limit must be between 1 second and 7 days.</translation>
    </message>
    <message>
        <source>The campaign is closed: it takes no times any more.</source>
        <translation>The campaign is closed: it takes no times any more.</translation>
    </message>
    <message>
        <source>Only a draft can be given a launch time: this campaign was launched already.</source>
        <translation>Only a draft can be given a launch time: this campaign was launched already.</translation>
    </message>
    <message>
        <source>The launch time %1 has passed: the servers&apos; time is %2.</source>
        <translation>The launch time %1 has passed: the servers&apos; time is %2.</translation>
    </message>
    <message>
        <source>The close time %1 has passed: the servers&apos; time is %2.</source>
        <translation>The close time %1 has passed: the servers&apos; time is %2.</translation>
    </message>
    <message>
        <source>The close (%1) must come after the launch (%2).</source>
        <translation>The close (%1) must come after the launch (%2).</translation>
    </message>
    <message>
        <source>A late limit needs a launch or close time.</source>
        <translation>A late limit needs a launch or close time.</translation>
    </message>
</context>
<context>
    <name>lantern::ServerStatus</name>
    <message>
        <source>down</source>
        <translation>down</translation>
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
    <name>lantern::SplitPreviewModel</name>
    <message>
        <source>From</source>
        <translation>From</translation>
    </message>
    <message>
        <source>To</source>
        <translation>To</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>Envelopes</translation>
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
    <message>
        <source>read-only connection (setting read-only): &apos;%1&apos; was not run on %2; only SELECT statements are allowed</source>
        <translation>read-only connection (setting read-only): &apos;%1&apos; was not run on %2; only SELECT statements are allowed</translation>
    </message>
    <message>
        <source>cannot open database %1: the account requires TLS (REQUIRE SSL): give the server&apos;s CA with --db-ca FILE (and --db-cert, --db-key for an account that requires a certificate)</source>
        <translation>cannot open database %1: the account requires TLS (REQUIRE SSL): give the server&apos;s CA with --db-ca FILE (and --db-cert, --db-key for an account that requires a certificate)</translation>
    </message>
</context>
<context>
    <name>lantern::SshSession</name>
    <message>
        <source>cannot start an SSH session (out of memory)</source>
        <translation>cannot start an SSH session (out of memory)</translation>
    </message>
    <message>
        <source>is unreachable</source>
        <translation>is unreachable</translation>
    </message>
    <message>
        <source>SSH server %1 %2: %3</source>
        <translation>SSH server %1 %2: %3</translation>
    </message>
    <message>
        <source>cannot be used</source>
        <translation>cannot be used</translation>
    </message>
    <message>
        <source>sent no host key</source>
        <translation>sent no host key</translation>
    </message>
    <message>
        <source>sent a host key that cannot be read</source>
        <translation>sent a host key that cannot be read</translation>
    </message>
    <message>
        <source>SSH server %1 presented the host key %2, not the one %3 holds for it: someone may be impersonating it (or it was re-installed). Refused; if its administrator confirms the new key, remove the old line from %3.</source>
        <translation>SSH server %1 presented the host key %2, not the one %3 holds for it: someone may be impersonating it (or it was re-installed). Refused; if its administrator confirms the new key, remove the old line from %3.</translation>
    </message>
    <message>
        <source>SSH server %1 presented a host key of another type than the one %2 holds for it (%3): refused, as for a changed key.</source>
        <translation>SSH server %1 presented a host key of another type than the one %2 holds for it (%3): refused, as for a changed key.</translation>
    </message>
    <message>
        <source>was accepted, but its host key could not be written to %1</source>
        <translation>was accepted, but its host key could not be written to %1</translation>
    </message>
    <message>
        <source>SSH server %1 is not known yet: its host key&apos;s fingerprint is %2. Compare it with the one its administrator gives you before you trust it.</source>
        <translation>SSH server %1 is not known yet: its host key&apos;s fingerprint is %2. Compare it with the one its administrator gives you before you trust it.</translation>
    </message>
    <message>
        <source>could not be checked against %1</source>
        <translation>could not be checked against %1</translation>
    </message>
    <message>
        <source>SSH server %1: no SSH agent runs for this session (SSH_AUTH_SOCK is not set); start ssh-agent and ssh-add your key, or choose the key file</source>
        <translation>SSH server %1: no SSH agent runs for this session (SSH_AUTH_SOCK is not set); start ssh-agent and ssh-add your key, or choose the key file</translation>
    </message>
    <message>
        <source>cannot read the SSH key %1: the file is missing or not a private key, or the passphrase is wrong</source>
        <translation>cannot read the SSH key %1: the file is missing or not a private key, or the passphrase is wrong</translation>
    </message>
    <message>
        <source>failed during the login</source>
        <translation>failed during the login</translation>
    </message>
    <message>
        <source>the agent&apos;s keys</source>
        <translation>the agent&apos;s keys</translation>
    </message>
    <message>
        <source>the key %1</source>
        <translation>the key %1</translation>
    </message>
    <message>
        <source>the password</source>
        <translation>the password</translation>
    </message>
    <message>
        <source>SSH server %1 refused the login of %2 with %3</source>
        <translation>SSH server %1 refused the login of %2 with %3</translation>
    </message>
</context>
<context>
    <name>lantern::SshTunnel</name>
    <message>
        <source>cannot start the SSH tunnel: %1</source>
        <translation>cannot start the SSH tunnel: %1</translation>
    </message>
    <message>
        <source>cannot open a local port for %1 through the SSH tunnel: %2</source>
        <translation>cannot open a local port for %1 through the SSH tunnel: %2</translation>
    </message>
    <message>
        <source>The SQL URL names a Unix socket, which an SSH tunnel cannot reach: give the database&apos;s host and port as the SSH server reaches them.</source>
        <translation>The SQL URL names a Unix socket, which an SSH tunnel cannot reach: give the database&apos;s host and port as the SSH server reaches them.</translation>
    </message>
</context>
<context>
    <name>lantern::TimetableModel</name>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 d %2 h</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>in %1</translation>
    </message>
    <message>
        <source>overdue by %1</source>
        <extracomment>A scheduled transition whose time has passed and that no worker has made yet.</extracomment>
        <translation>overdue by %1</translation>
    </message>
    <message>
        <source>%1 s late</source>
        <extracomment>How long after its time a scheduled transition was made.</extracomment>
        <translation>%1 s late</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>Pending</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Done</translation>
    </message>
    <message>
        <source>Done (%1)</source>
        <translation>Done (%1)</translation>
    </message>
    <message>
        <source>Missed: %1</source>
        <extracomment>%1: why it was not made, as the worker recorded it.</extracomment>
        <translation>Missed: %1</translation>
    </message>
    <message>
        <source>Its envelopes are in SQL and its pool in Redis: going live is one status change.</source>
        <translation>Its envelopes are in SQL and its pool in Redis: going live is one status change.</translation>
    </message>
    <message>
        <source>Not prepared yet: a worker prepares a launch in the 15 minutes before its time.</source>
        <translation>Not prepared yet: a worker prepares a launch in the 15 minutes before its time.</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>Launch</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Close</translation>
    </message>
    <message>
        <source>not yet</source>
        <translation>not yet</translation>
    </message>
    <message>
        <source>Campaign</source>
        <translation>Campaign</translation>
    </message>
    <message>
        <source>Transition</source>
        <translation>Transition</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Time</translation>
    </message>
    <message>
        <source>Countdown</source>
        <translation>Countdown</translation>
    </message>
    <message>
        <source>Prepared</source>
        <translation>Prepared</translation>
    </message>
    <message>
        <source>State</source>
        <translation>State</translation>
    </message>
    <message>
        <source>Scheduled by</source>
        <translation>Scheduled by</translation>
    </message>
    <message>
        <source>Above the four-eyes bound: a manager other than its creator must approve it before its time, or the launch is missed.</source>
        <translation>Above the four-eyes bound: a manager other than its creator must approve it before its time, or the launch is missed.</translation>
    </message>
    <message>
        <source>Approved by %1.</source>
        <translation>Approved by %1.</translation>
    </message>
    <message>
        <source>awaiting</source>
        <extracomment>The four-eyes approval of a scheduled launch: approved (by whom) or still awaited.</extracomment>
        <translation>awaiting</translation>
    </message>
    <message>
        <source>Approved</source>
        <translation>Approved</translation>
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
        <source>This connection is read-only: make-ups cannot be granted here.</source>
        <translation>This connection is read-only: make-ups cannot be granted here.</translation>
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
    <name>lantern::WorkerShift</name>
    <message>
        <source>Redis lost grabs of campaign %1 that the ledger holds; rebuilt its Redis state from SQL</source>
        <translation>Redis lost grabs of campaign %1 that the ledger holds; rebuilt its Redis state from SQL</translation>
    </message>
    <message>
        <source>%1; retrying in %2 ms</source>
        <translation>%1; retrying in %2 ms</translation>
    </message>
</context>
<context>
    <name>lantern::access::AccountIdentity</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>the account %1 may not %2</source>
        <translation>the account %1 may not %2</translation>
    </message>
</context>
<context>
    <name>lantern::access::AccountName</name>
    <message>
        <source>invalid account name &apos;%1&apos;: a lowercase letter, then up to %2 of a-z 0-9 _</source>
        <translation>invalid account name &apos;%1&apos;: a lowercase letter, then up to %2 of a-z 0-9 _</translation>
    </message>
    <message>
        <source>unusable password: 12 to 128 printable ASCII characters, no spaces, quotes, backslashes or backticks</source>
        <translation>unusable password: 12 to 128 printable ASCII characters, no spaces, quotes, backslashes or backticks</translation>
    </message>
</context>
<context>
    <name>lantern::access::RedisAccounts</name>
    <message>
        <source>SCRIPT LOAD on %1: %2</source>
        <translation>SCRIPT LOAD on %1: %2</translation>
    </message>
    <message>
        <source>cannot reach the Redis node %1, so no account was changed anywhere: %2%3</source>
        <translation>cannot reach the Redis node %1, so no account was changed anywhere: %2%3</translation>
    </message>
    <message>
        <source> (a replica the sentinels still list after it is gone for good is forgotten with SENTINEL RESET %1)</source>
        <translation> (a replica the sentinels still list after it is gone for good is forgotten with SENTINEL RESET %1)</translation>
    </message>
    <message>
        <source>%1 failed on %2: %3. Written on: %4; not on: %5</source>
        <translation>%1 failed on %2: %3. Written on: %4; not on: %5</translation>
    </message>
    <message>
        <source>no node</source>
        <translation>no node</translation>
    </message>
</context>
<context>
    <name>lantern::access::Roles</name>
    <message>
        <source>run this command</source>
        <translation>run this command</translation>
    </message>
    <message>
        <source>read Lantern&apos;s data</source>
        <translation>read Lantern&apos;s data</translation>
    </message>
    <message>
        <source>check users in</source>
        <translation>check users in</translation>
    </message>
    <message>
        <source>grab envelopes</source>
        <translation>grab envelopes</translation>
    </message>
    <message>
        <source>grant make-up check-ins</source>
        <translation>grant make-up check-ins</translation>
    </message>
    <message>
        <source>create campaigns</source>
        <translation>create campaigns</translation>
    </message>
    <message>
        <source>approve campaigns</source>
        <translation>approve campaigns</translation>
    </message>
    <message>
        <source>launch campaigns</source>
        <translation>launch campaigns</translation>
    </message>
    <message>
        <source>pause campaigns</source>
        <translation>pause campaigns</translation>
    </message>
    <message>
        <source>resume campaigns</source>
        <translation>resume campaigns</translation>
    </message>
    <message>
        <source>close campaigns</source>
        <translation>close campaigns</translation>
    </message>
    <message>
        <source>schedule campaigns</source>
        <translation>schedule campaigns</translation>
    </message>
    <message>
        <source>repair campaigns</source>
        <translation>repair campaigns</translation>
    </message>
    <message>
        <source>recover workers&apos; tasks</source>
        <translation>recover workers&apos; tasks</translation>
    </message>
    <message>
        <source>handle dead letters</source>
        <translation>handle dead letters</translation>
    </message>
    <message>
        <source>reconcile check-ins</source>
        <translation>reconcile check-ins</translation>
    </message>
    <message>
        <source>turn API features on or off</source>
        <translation>turn API features on or off</translation>
    </message>
    <message>
        <source>run workers</source>
        <translation>run workers</translation>
    </message>
    <message>
        <source>serve the API</source>
        <translation>serve the API</translation>
    </message>
    <message>
        <source>migrate the schema</source>
        <translation>migrate the schema</translation>
    </message>
    <message>
        <source>manage accounts</source>
        <translation>manage accounts</translation>
    </message>
</context>
<context>
    <name>lantern::access::SqlAccounts</name>
    <message>
        <source>accounts and roles need MariaDB or MySQL: SQLite has no accounts (docs/security.md)</source>
        <translation>accounts and roles need MariaDB or MySQL: SQLite has no accounts (docs/security.md)</translation>
    </message>
    <message>
        <source>database name &apos;%1&apos; cannot be granted on: use A-Z a-z 0-9 _</source>
        <translation>database name &apos;%1&apos; cannot be granted on: use A-Z a-z 0-9 _</translation>
    </message>
    <message>
        <source>the server has anonymous accounts (user &apos;&apos;): with one, a client can pick the name the audit records; drop them first (DROP USER &apos;&apos;@&apos;localhost&apos;, ...)</source>
        <translation>the server has anonymous accounts (user &apos;&apos;): with one, a client can pick the name the audit records; drop them first (DROP USER &apos;&apos;@&apos;localhost&apos;, ...)</translation>
    </message>
    <message>
        <source>the account %1 exists already (operator set-role or rotate change it)</source>
        <translation>the account %1 exists already (operator set-role or rotate change it)</translation>
    </message>
    <message>
        <source>there is no operator account %1</source>
        <translation>there is no operator account %1</translation>
    </message>
</context>
<context>
    <name>lantern::cli::Campaign</name>
    <message>
        <source>unknown --algorithm &apos;%1&apos;: expected double-mean, smoothed or uniform-cuts</source>
        <translation>unknown --algorithm &apos;%1&apos;: expected double-mean, smoothed or uniform-cuts</translation>
    </message>
    <message>
        <source>invalid --operator: expected 1 to %1 characters, no control characters, valid UTF-8</source>
        <translation>invalid --operator: expected 1 to %1 characters, no control characters, valid UTF-8</translation>
    </message>
    <message>
        <source>a transition is due at %1 and no worker is alive to make it: start lanternd work</source>
        <translation>a transition is due at %1 and no worker is alive to make it: start lanternd work</translation>
    </message>
    <message>
        <source>--operator %1: this account&apos;s actions are recorded as %2 (--operator is for shared accounts)</source>
        <translation>--operator %1: this account&apos;s actions are recorded as %2 (--operator is for shared accounts)</translation>
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
    <name>lantern::cli::CommandReference</name>
    <message>
        <source>Brings the SQL schema up to date and prints its version; running it again changes nothing.</source>
        <translation>Brings the SQL schema up to date and prints its version; running it again changes nothing.</translation>
    </message>
    <message>
        <source>Checks the user in for today (or --date) and prints the streak, the month&apos;s count and the points granted.</source>
        <translation>Checks the user in for today (or --date) and prints the streak, the month&apos;s count and the points granted.</translation>
    </message>
    <message>
        <source>Grants a make-up check-in for a past day inside the make-up window and quota, audited with the reason.</source>
        <translation>Grants a make-up check-in for a past day inside the make-up window and quota, audited with the reason.</translation>
    </message>
    <message>
        <source>Prints the user&apos;s signed and made-up days of a month, the streaks and the points balance.</source>
        <translation>Prints the user&apos;s signed and made-up days of a month, the streaks and the points balance.</translation>
    </message>
    <message>
        <source>Compares a day&apos;s check-ins in Redis with SQL and writes the missing rows.</source>
        <translation>Compares a day&apos;s check-ins in Redis with SQL and writes the missing rows.</translation>
    </message>
    <message>
        <source>Prints the check-in figures of a month, day by day.</source>
        <translation>Prints the check-in figures of a month, day by day.</translation>
    </message>
    <message>
        <source>Moves check-in keys of the old Redis layout to the packed one; --dry-run only counts them.</source>
        <translation>Moves check-in keys of the old Redis layout to the packed one; --dry-run only counts them.</translation>
    </message>
    <message>
        <source>Runs a worker: persists check-ins and envelope grabs and pays envelopes; --once drains every queue and exits.</source>
        <translation>Runs a worker: persists check-ins and envelope grabs and pays envelopes; --once drains every queue and exits.</translation>
    </message>
    <message>
        <source>Prints the queues&apos; depth and oldest task, the workers&apos; heartbeats and the dead-letter list.</source>
        <translation>Prints the queues&apos; depth and oldest task, the workers&apos; heartbeats and the dead-letter list.</translation>
    </message>
    <message>
        <source>Takes back the tasks of workers whose heartbeat expired (or of --worker W) and completes or requeues them.</source>
        <translation>Takes back the tasks of workers whose heartbeat expired (or of --worker W) and completes or requeues them.</translation>
    </message>
    <message>
        <source>Prints the user&apos;s public token and a signed bearer for the HTTP API.</source>
        <translation>Prints the user&apos;s public token and a signed bearer for the HTTP API.</translation>
    </message>
    <message>
        <source>Writes the envelopes to SQL and the pool to Redis and opens the campaign; it can be repeated after a crash.</source>
        <translation>Writes the envelopes to SQL and the pool to Redis and opens the campaign; it can be repeated after a crash.</translation>
    </message>
    <message>
        <source>Stops grabs (the kill switch).</source>
        <translation>Stops grabs (the kill switch).</translation>
    </message>
    <message>
        <source>Lets a paused campaign&apos;s grabs go on.</source>
        <translation>Lets a paused campaign&apos;s grabs go on.</translation>
    </message>
    <message>
        <source>Closes the campaign and refunds the envelopes nobody grabbed.</source>
        <translation>Closes the campaign and refunds the envelopes nobody grabbed.</translation>
    </message>
    <message>
        <source>Prints the campaign&apos;s status and figures: grabbed, persisted, paid and refunded.</source>
        <translation>Prints the campaign&apos;s status and figures: grabbed, persisted, paid and refunded.</translation>
    </message>
    <message>
        <source>Puts a campaign&apos;s Redis state back in line with the SQL ledger after Redis lost data.</source>
        <translation>Puts a campaign&apos;s Redis state back in line with the SQL ledger after Redis lost data.</translation>
    </message>
    <message>
        <source>Grabs an envelope of a live campaign for the user and prints the outcome.</source>
        <translation>Grabs an envelope of a live campaign for the user and prints the outcome.</translation>
    </message>
    <message>
        <source>Checks the invariants of the envelope ledger and prints any violation.</source>
        <translation>Checks the invariants of the envelope ledger and prints any violation.</translation>
    </message>
    <message>
        <source>Runs the client HTTP API (check-in, calendar, grabs); needs --token-secret to check bearers.</source>
        <translation>Runs the client HTTP API (check-in, calendar, grabs); needs --token-secret to check bearers.</translation>
    </message>
    <message>
        <source>Turns a feature of the HTTP API on or off for every server.</source>
        <translation>Turns a feature of the HTTP API on or off for every server.</translation>
    </message>
    <message>
        <source>SQL: mysql://user:password@host:port/name[?unix_socket=PATH] or sqlite:///absolute/path.db.</source>
        <translation>SQL: mysql://user:password@host:port/name[?unix_socket=PATH] or sqlite:///absolute/path.db.</translation>
    </message>
    <message>
        <source>Treats this day as today in every rule.</source>
        <translation>Treats this day as today in every rule.</translation>
    </message>
    <message>
        <source>Time zone of the business day (an IANA name such as Asia/Shanghai).</source>
        <translation>Time zone of the business day (an IANA name such as Asia/Shanghai).</translation>
    </message>
    <message>
        <source>Prefix of every Redis key (default lt:).</source>
        <translation>Prefix of every Redis key (default lt:).</translation>
    </message>
    <message>
        <source>Number of check-in key shards (default 16).</source>
        <translation>Number of check-in key shards (default 16).</translation>
    </message>
    <message>
        <source>Whether streaks restart on the 1st (monthly, the default) or cross months.</source>
        <translation>Whether streaks restart on the 1st (monthly, the default) or cross months.</translation>
    </message>
    <message>
        <source>Points for day 1, 2, ... of a streak; the last entry repeats.</source>
        <translation>Points for day 1, 2, ... of a streak; the last entry repeats.</translation>
    </message>
    <message>
        <source>Make-up window in days (0, the default: the past days of the current month).</source>
        <translation>Make-up window in days (0, the default: the past days of the current month).</translation>
    </message>
    <message>
        <source>Make-ups allowed per month (default 3).</source>
        <translation>Make-ups allowed per month (default 3).</translation>
    </message>
    <message>
        <source>Whether a make-up grants points (default false).</source>
        <translation>Whether a make-up grants points (default false).</translation>
    </message>
    <message>
        <source>Salt of the public user tokens.</source>
        <translation>Salt of the public user tokens.</translation>
    </message>
    <message>
        <source>Secret that signs the API bearers; serve needs it.</source>
        <translation>Secret that signs the API bearers; serve needs it.</translation>
    </message>
    <message>
        <source>HTTP API limit of check-ins: R requests per second, burst B (0: unlimited, the default).</source>
        <translation>HTTP API limit of check-ins: R requests per second, burst B (0: unlimited, the default).</translation>
    </message>
    <message>
        <source>HTTP API limit of calendar reads, as --rate-checkin.</source>
        <translation>HTTP API limit of calendar reads, as --rate-checkin.</translation>
    </message>
    <message>
        <source>HTTP API limit of grabs, as --rate-checkin.</source>
        <translation>HTTP API limit of grabs, as --rate-checkin.</translation>
    </message>
    <message>
        <source>HTTP API limit of campaign reads, as --rate-checkin.</source>
        <translation>HTTP API limit of campaign reads, as --rate-checkin.</translation>
    </message>
    <message>
        <source>Refuses every write, in Redis and in SQL.</source>
        <translation>Refuses every write, in Redis and in SQL.</translation>
    </message>
    <message>
        <source>After each grab, waits until N replicas have it or MS milliseconds pass.</source>
        <translation>After each grab, waits until N replicas have it or MS milliseconds pass.</translation>
    </message>
    <message>
        <source>Reads settings from the named connection profile.</source>
        <translation>Reads settings from the named connection profile.</translation>
    </message>
    <message>
        <source>Reads settings from this profile file.</source>
        <translation>Reads settings from this profile file.</translation>
    </message>
    <message>
        <source>Language of the messages and of --help (default: the system locale).</source>
        <translation>Language of the messages and of --help (default: the system locale).</translation>
    </message>
    <message>
        <source>Every global option but --lang, --profile and --config as LANTERN_ and its name in upper case with _ for -. An option on the command line wins over its variable, a variable over the profile.</source>
        <translation>Every global option but --lang, --profile and --config as LANTERN_ and its name in upper case with _ for -. An option on the command line wins over its variable, a variable over the profile.</translation>
    </message>
    <message>
        <source>The profile file, or the named profile, to read settings from.</source>
        <translation>The profile file, or the named profile, to read settings from.</translation>
    </message>
    <message>
        <source>Set by systemd (LoadCredential=): a file there named after a setting (redis, db, token-secret, ...) holds its value, which wins over the variable and the profile.</source>
        <translation>Set by systemd (LoadCredential=): a file there named after a setting (redis, db, token-secret, ...) holds its value, which wins over the variable and the profile.</translation>
    </message>
    <message>
        <source>File that work appends the tasks that keep failing to (default ~/.local/share/lantern/errors.log).</source>
        <translation>File that work appends the tasks that keep failing to (default ~/.local/share/lantern/errors.log).</translation>
    </message>
    <message>
        <source>Seconds after its last heartbeat that a worker counts as dead (default 15).</source>
        <translation>Seconds after its last heartbeat that a worker counts as dead (default 15).</translation>
    </message>
    <message>
        <source>http:// or https:// endpoint of the payout provider; unset: the simulated provider.</source>
        <translation>http:// or https:// endpoint of the payout provider; unset: the simulated provider.</translation>
    </message>
    <message>
        <source>How long one call to the payout provider may take (default 3000).</source>
        <translation>How long one call to the payout provider may take (default 3000).</translation>
    </message>
    <message>
        <source>Keep-alive connections a worker opens to the payout provider (default: --in-flight).</source>
        <translation>Keep-alive connections a worker opens to the payout provider (default: --in-flight).</translation>
    </message>
    <message>
        <source>Calls per second to the payout provider, all workers together (default: no limit).</source>
        <translation>Calls per second to the payout provider, all workers together (default: no limit).</translation>
    </message>
    <message>
        <source>The simulated provider: the share of calls that fail (0 to 1) and the delay of each call in milliseconds.</source>
        <translation>The simulated provider: the share of calls that fail (0 to 1) and the delay of each call in milliseconds.</translation>
    </message>
    <message>
        <source>Done, including business outcomes such as already signed or sold out.</source>
        <translation>Done, including business outcomes such as already signed or sold out.</translation>
    </message>
    <message>
        <source>Anything else.</source>
        <translation>Anything else.</translation>
    </message>
    <message>
        <source>Invalid input: the message is on stderr and nothing was written.</source>
        <translation>Invalid input: the message is on stderr and nothing was written.</translation>
    </message>
    <message>
        <source>Redis or SQL unreachable or not ready; nothing was half-written.</source>
        <translation>Redis or SQL unreachable or not ready; nothing was half-written.</translation>
    </message>
    <message>
        <source>Refused by a business rule, such as a make-up outside the window.</source>
        <translation>Refused by a business rule, such as a make-up outside the window.</translation>
    </message>
    <message>
        <source>usage: lanternd COMMAND [options]</source>
        <translation>usage: lanternd COMMAND [options]</translation>
    </message>
    <message>
        <source>commands:</source>
        <translation>commands:</translation>
    </message>
    <message>
        <source>global options (anywhere on the line):</source>
        <translation>global options (anywhere on the line):</translation>
    </message>
    <message>
        <source>environment:</source>
        <translation>environment:</translation>
    </message>
    <message>
        <source>exit status:</source>
        <translation>exit status:</translation>
    </message>
    <message>
        <source>The manual page lanternd(1) says the same at more length.</source>
        <translation>The manual page lanternd(1) says the same at more length.</translation>
    </message>
    <message>
        <source>check-in and red-envelope campaigns on Redis and SQL: JSON command line, workers and HTTP API</source>
        <translation>check-in and red-envelope campaigns on Redis and SQL: JSON command line, workers and HTTP API</translation>
    </message>
    <message>
        <source>lanternd is the headless side of Lantern. Each command prints one JSON object on one line on stdout; messages go to stderr, in the language of --lang or the system locale. JSON is never translated.</source>
        <translation>lanternd is the headless side of Lantern. Each command prints one JSON object on one line on stdout; messages go to stderr, in the language of --lang or the system locale. JSON is never translated.</translation>
    </message>
    <message>
        <source>Global options may come before or after the command; --name value and --name=value both work. --help prints this summary and --help-man this page as roff.</source>
        <translation>Global options may come before or after the command; --name value and --name=value both work. --help prints this summary and --help-man this page as roff.</translation>
    </message>
    <message>
        <source>Commands</source>
        <translation>Commands</translation>
    </message>
    <message>
        <source>Global options</source>
        <translation>Global options</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>Environment</translation>
    </message>
    <message>
        <source>Exit status</source>
        <translation>Exit status</translation>
    </message>
    <message>
        <source>See also</source>
        <translation>See also</translation>
    </message>
    <message>
        <source>lantern(1), systemd.exec(5); the units lanternd-work.service and lanternd-serve.service.</source>
        <translation>lantern(1), systemd.exec(5); the units lanternd-work.service and lanternd-serve.service.</translation>
    </message>
    <message>
        <source>Creates a draft envelope campaign: the total in cents split into C envelopes by the algorithm; with --launch-at (and --close-at) the workers launch (and close) it at those times.</source>
        <translation>Creates a draft envelope campaign: the total in cents split into C envelopes by the algorithm; with --launch-at (and --close-at) the workers launch (and close) it at those times.</translation>
    </message>
    <message>
        <source>Sets, changes or clears (--clear) when the workers launch and close a campaign: T is ISO 8601 with an offset (2026-12-31T20:00:00+08:00) or local time in --tz; --late-limit S skips a transition more than S seconds late.</source>
        <translation>Sets, changes or clears (--clear) when the workers launch and close a campaign: T is ISO 8601 with an offset (2026-12-31T20:00:00+08:00) or local time in --tz; --late-limit S skips a transition more than S seconds late.</translation>
    </message>
    <message>
        <source>Lists the campaigns, newest first; --scheduled the timetable: each launch and close, prepared, made or missed.</source>
        <translation>Lists the campaigns, newest first; --scheduled the timetable: each launch and close, prepared, made or missed.</translation>
    </message>
    <message>
        <source>Redis: redis://[user:password@]host:port[/db] (rediss:// over TLS), any node (or a list of nodes) of a Redis Cluster, or the sentinels of a master: redis-sentinel://[user:password@]host:port,host:port#MASTER.</source>
        <translation>Redis: redis://[user:password@]host:port[/db] (rediss:// over TLS), any node (or a list of nodes) of a Redis Cluster, or the sentinels of a master: redis-sentinel://[user:password@]host:port,host:port#MASTER.</translation>
    </message>
    <message>
        <source>TLS to Redis: the CA certificates that sign the servers&apos; (default: the system&apos;s).</source>
        <translation>TLS to Redis: the CA certificates that sign the servers&apos; (default: the system&apos;s).</translation>
    </message>
    <message>
        <source>TLS to Redis: this client&apos;s certificate, for mutual TLS.</source>
        <translation>TLS to Redis: this client&apos;s certificate, for mutual TLS.</translation>
    </message>
    <message>
        <source>TLS to Redis: the private key of --redis-cert.</source>
        <translation>TLS to Redis: the private key of --redis-cert.</translation>
    </message>
    <message>
        <source>TLS to Redis: the server name sent and checked (default: the URL&apos;s host).</source>
        <translation>TLS to Redis: the server name sent and checked (default: the URL&apos;s host).</translation>
    </message>
    <message>
        <source>TLS to Redis: full (the default) checks the chain and the host name or IP, ca the chain only, none nothing (said on stderr).</source>
        <translation>TLS to Redis: full (the default) checks the chain and the host name or IP, ca the chain only, none nothing (said on stderr).</translation>
    </message>
    <message>
        <source>Redis Sentinel: the sentinels&apos; own user (the URL&apos;s credentials are the data nodes&apos;).</source>
        <translation>Redis Sentinel: the sentinels&apos; own user (the URL&apos;s credentials are the data nodes&apos;).</translation>
    </message>
    <message>
        <source>Redis Sentinel: the sentinels&apos; own password.</source>
        <translation>Redis Sentinel: the sentinels&apos; own password.</translation>
    </message>
    <message>
        <source>TLS to MySQL/MariaDB: the CA certificates that sign the server&apos;s (the chain is checked, not the host name).</source>
        <translation>TLS to MySQL/MariaDB: the CA certificates that sign the server&apos;s (the chain is checked, not the host name).</translation>
    </message>
    <message>
        <source>TLS to MySQL/MariaDB: this client&apos;s certificate.</source>
        <translation>TLS to MySQL/MariaDB: this client&apos;s certificate.</translation>
    </message>
    <message>
        <source>TLS to MySQL/MariaDB: the private key of --db-cert.</source>
        <translation>TLS to MySQL/MariaDB: the private key of --db-cert.</translation>
    </message>
    <message>
        <source>Approves a draft above the four-eyes bound (access install --approval-cents); only a manager other than its creator can, and only then does it launch.</source>
        <translation>Approves a draft above the four-eyes bound (access install --approval-cents); only a manager other than its creator can, and only then does it launch.</translation>
    </message>
    <message>
        <source>With administrative accounts: creates the roles on MariaDB with their grants, records the four-eyes bound (default LANTERN_APPROVAL_CENTS or 1000000) and loads Lantern&apos;s Lua scripts; running it again changes nothing.</source>
        <translation>With administrative accounts: creates the roles on MariaDB with their grants, records the four-eyes bound (default LANTERN_APPROVAL_CENTS or 1000000) and loads Lantern&apos;s Lua scripts; running it again changes nothing.</translation>
    </message>
    <message>
        <source>Creates an account on MariaDB with that default role and the Redis ACL user on every node; without --password-file a generated password is printed, once.</source>
        <translation>Creates an account on MariaDB with that default role and the Redis ACL user on every node; without --password-file a generated password is printed, once.</translation>
    </message>
    <message>
        <source>Lists the accounts that hold one of Lantern&apos;s roles.</source>
        <translation>Lists the accounts that hold one of Lantern&apos;s roles.</translation>
    </message>
    <message>
        <source>Drops the account on MariaDB and on every Redis node.</source>
        <translation>Drops the account on MariaDB and on every Redis node.</translation>
    </message>
    <message>
        <source>Gives the account a new password on MariaDB and on every Redis node.</source>
        <translation>Gives the account a new password on MariaDB and on every Redis node.</translation>
    </message>
    <message>
        <source>Changes the account&apos;s role; its Redis user gets the new rules and a new password.</source>
        <translation>Changes the account&apos;s role; its Redis user gets the new rules and a new password.</translation>
    </message>
    <message>
        <source>Not permitted for this account: {&quot;error&quot;:&quot;forbidden&quot;} on stdout and nothing was written.</source>
        <translation>Not permitted for this account: {&quot;error&quot;:&quot;forbidden&quot;} on stdout and nothing was written.</translation>
    </message>
</context>
<context>
    <name>lantern::cli::Commands</name>
    <message>
        <source>cannot reconcile %1: it is after today</source>
        <translation>cannot reconcile %1: it is after today</translation>
    </message>
    <message>
        <source>invalid --ttl-s: expected 1 to 31622400 seconds</source>
        <translation>invalid --ttl-s: expected 1 to 31622400 seconds</translation>
    </message>
    <message>
        <source>serve needs a token secret to check bearers: --token-secret or LANTERN_TOKEN_SECRET</source>
        <translation>serve needs a token secret to check bearers: --token-secret or LANTERN_TOKEN_SECRET</translation>
    </message>
    <message>
        <source>invalid --state &apos;%1&apos;: expected on or off</source>
        <translation>invalid --state &apos;%1&apos;: expected on or off</translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation>warning: %1</translation>
    </message>
    <message>
        <source>invalid --%1: expected %2 to %3</source>
        <translation>invalid --%1: expected %2 to %3</translation>
    </message>
    <message>
        <source>migrate-redis: %1 user-months found, %2 moved; %3 day sets found, %4 removed
</source>
        <translation>migrate-redis: %1 user-months found, %2 moved; %3 day sets found, %4 removed
</translation>
    </message>
</context>
<context>
    <name>lantern::cli::Main</name>
    <message>
        <source>unknown command &apos;%1&apos; (see lanternd --help)</source>
        <translation>unknown command &apos;%1&apos; (see lanternd --help)</translation>
    </message>
    <message>
        <source>%1; try again in a moment</source>
        <translation>%1; try again in a moment</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AlertBar</name>
    <message>
        <source>⚠ %1 &lt;a href=&quot;view:%2&quot;&gt;Open %3&lt;/a&gt;</source>
        <extracomment>An alert of the console, then a link to the view that shows it (&quot;Open Queues&quot;).</extracomment>
        <translation>⚠ %1 &lt;a href=&quot;view:%2&quot;&gt;Open %3&lt;/a&gt;</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AlertCenter</name>
    <message>
        <source>Lantern console</source>
        <translation>Lantern console</translation>
    </message>
    <message>
        <source>Lantern alert</source>
        <translation>Lantern alert</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AlertThresholdsDialog</name>
    <message>
        <source>Dead letters appeared</source>
        <translation>Dead letters appeared</translation>
    </message>
    <message>
        <source>A worker stopped beating</source>
        <translation>A worker stopped beating</translation>
    </message>
    <message>
        <source>The ledger does not balance for a campaign</source>
        <translation>The ledger does not balance for a campaign</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>Alerts</translation>
    </message>
    <message>
        <source>When the console alerts for the servers in use:</source>
        <translation>When the console alerts for the servers in use:</translation>
    </message>
    <message>
        <source>When the console alerts for the profile “%1”:</source>
        <translation>When the console alerts for the profile “%1”:</translation>
    </message>
    <message>
        <source> entries</source>
        <extracomment>The backlog alert: more than this many entries wait in the queues.</extracomment>
        <translation> entries</translation>
    </message>
    <message>
        <source>Backlog above</source>
        <translation>Backlog above</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>off</source>
        <extracomment>0 minutes turns the backlog alert off.</extracomment>
        <translation>off</translation>
    </message>
    <message>
        <source>and growing for</source>
        <translation>and growing for</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AuditDetailPanel</name>
    <message>
        <source>Select a row to read what was done, by whom and why.</source>
        <translation>Select a row to read what was done, by whom and why.</translation>
    </message>
    <message>
        <source>When</source>
        <translation>When</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>Who</translation>
    </message>
    <message>
        <source>Action</source>
        <extracomment>An audit entry&apos;s action: in words, then its stored name, e.g. &quot;Make-up granted (checkin.makeup)&quot;.</extracomment>
        <translation>Action</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>Target</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>none recorded</source>
        <translation>none recorded</translation>
    </message>
    <message>
        <source>Entry</source>
        <translation>Entry</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AuditView</name>
    <message>
        <source>Clear filters</source>
        <translation>Clear filters</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>Who</translation>
    </message>
    <message>
        <source>Operators whose name contains this text</source>
        <translation>Operators whose name contains this text</translation>
    </message>
    <message>
        <source>Any action</source>
        <translation>Any action</translation>
    </message>
    <message>
        <source>Actions that start with this text, e.g. “campaign.” for every campaign action</source>
        <translation>Actions that start with this text, e.g. “campaign.” for every campaign action</translation>
    </message>
    <message>
        <source>Target, e.g. uid:10001</source>
        <translation>Target, e.g. uid:10001</translation>
    </message>
    <message>
        <source>Targets that contain this text: a user (uid:10001), a campaign (campaign:3), a queue, …</source>
        <translation>Targets that contain this text: a user (uid:10001), a campaign (campaign:3), a queue, …</translation>
    </message>
    <message>
        <source>Any time</source>
        <translation>Any time</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>Today</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>Last 7 days</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>Last 30 days</translation>
    </message>
    <message>
        <source>Custom range</source>
        <translation>Custom range</translation>
    </message>
    <message>
        <source>Business days, in the configured time zone</source>
        <translation>Business days, in the configured time zone</translation>
    </message>
    <message>
        <source>First day</source>
        <translation>First day</translation>
    </message>
    <message>
        <source>Last day</source>
        <translation>Last day</translation>
    </message>
    <message>
        <source>Read the shown page again (F5)</source>
        <translation>Read the shown page again (F5)</translation>
    </message>
    <message>
        <source>Waiting for the database…</source>
        <translation>Waiting for the database…</translation>
    </message>
    <message>
        <source>No audit entries match these filters.</source>
        <translation>No audit entries match these filters.</translation>
    </message>
    <message>
        <source>The audit log is empty: no operator has changed anything yet.</source>
        <translation>The audit log is empty: no operator has changed anything yet.</translation>
    </message>
    <message>
        <source>Page %1</source>
        <translation>Page %1</translation>
    </message>
    <message>
        <source>Audit log</source>
        <translation>Audit log</translation>
    </message>
    <message>
        <source>First page</source>
        <translation>First page</translation>
    </message>
    <message>
        <source>‹ Previous</source>
        <translation>‹ Previous</translation>
    </message>
    <message>
        <source>Next ›</source>
        <translation>Next ›</translation>
    </message>
    <message>
        <source>The first page in this order</source>
        <translation>The first page in this order</translation>
    </message>
    <message>
        <source>The previous page</source>
        <translation>The previous page</translation>
    </message>
    <message>
        <source>The next page</source>
        <translation>The next page</translation>
    </message>
    <message>
        <source>Page %1 · entries %2–%3, %4</source>
        <translation>Page %1 · entries %2–%3, %4</translation>
    </message>
    <message>
        <source>by who, A to Z</source>
        <translation>by who, A to Z</translation>
    </message>
    <message>
        <source>by who, Z to A</source>
        <translation>by who, Z to A</translation>
    </message>
    <message>
        <source>by action, A to Z</source>
        <translation>by action, A to Z</translation>
    </message>
    <message>
        <source>by action, Z to A</source>
        <translation>by action, Z to A</translation>
    </message>
    <message>
        <source>by target, A to Z</source>
        <translation>by target, A to Z</translation>
    </message>
    <message>
        <source>by target, Z to A</source>
        <translation>by target, Z to A</translation>
    </message>
    <message>
        <source>oldest first</source>
        <translation>oldest first</translation>
    </message>
    <message>
        <source>newest first</source>
        <translation>newest first</translation>
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
    <name>lantern::ui::CalendarPane</name>
    <message>
        <source>This month</source>
        <translation>This month</translation>
    </message>
    <message>
        <source>Previous month</source>
        <translation>Previous month</translation>
    </message>
    <message>
        <source>Previous month (Ctrl+Page Up, or Page Up in the calendar)</source>
        <translation>Previous month (Ctrl+Page Up, or Page Up in the calendar)</translation>
    </message>
    <message>
        <source>Next month</source>
        <translation>Next month</translation>
    </message>
    <message>
        <source>Next month (Ctrl+Page Down, or Page Down in the calendar)</source>
        <translation>Next month (Ctrl+Page Down, or Page Down in the calendar)</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignActionBar</name>
    <message>
        <source>New campaign…</source>
        <translation>New campaign…</translation>
    </message>
    <message>
        <source>Approve…</source>
        <translation>Approve…</translation>
    </message>
    <message>
        <source>Launch…</source>
        <translation>Launch…</translation>
    </message>
    <message>
        <source>Pause…</source>
        <translation>Pause…</translation>
    </message>
    <message>
        <source>Resume…</source>
        <translation>Resume…</translation>
    </message>
    <message>
        <source>Close…</source>
        <translation>Close…</translation>
    </message>
    <message>
        <source>Times…</source>
        <translation>Times…</translation>
    </message>
    <message>
        <source>Four eyes: as a second manager, let this campaign above the bound be launched</source>
        <translation>Four eyes: as a second manager, let this campaign above the bound be launched</translation>
    </message>
    <message>
        <source>Write the envelopes and open grabs</source>
        <translation>Write the envelopes and open grabs</translation>
    </message>
    <message>
        <source>The kill switch: stop grabs at once</source>
        <translation>The kill switch: stop grabs at once</translation>
    </message>
    <message>
        <source>Open grabs again</source>
        <translation>Open grabs again</translation>
    </message>
    <message>
        <source>End the campaign for good and refund what is left</source>
        <translation>End the campaign for good and refund what is left</translation>
    </message>
    <message>
        <source>Set, change or drop the times a worker launches and closes the campaign at</source>
        <translation>Set, change or drop the times a worker launches and closes the campaign at</translation>
    </message>
    <message>
        <source>Read the list and the selected campaign again (F5)</source>
        <translation>Read the list and the selected campaign again (F5)</translation>
    </message>
    <message>
        <source>Waiting for Redis and the database…</source>
        <translation>Waiting for Redis and the database…</translation>
    </message>
    <message>
        <source>Campaign #%1 is not among the campaigns listed: select a campaign in the list to act on it.</source>
        <translation>Campaign #%1 is not among the campaigns listed: select a campaign in the list to act on it.</translation>
    </message>
    <message>
        <source>Campaign #%1 is above the four-eyes bound: a manager other than %2 must approve it before it is launched.</source>
        <translation>Campaign #%1 is above the four-eyes bound: a manager other than %2 must approve it before it is launched.</translation>
    </message>
    <message>
        <source>Audited as %1.</source>
        <translation>Audited as %1.</translation>
    </message>
    <message>
        <source>You are asked for your name first: every change is audited under it.</source>
        <translation>You are asked for your name first: every change is audited under it.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignConfirmation</name>
    <message>
        <source>Launch campaign #%1?</source>
        <translation>Launch campaign #%1?</translation>
    </message>
    <message>
        <source>“%1” goes live now: its %2 envelopes (%3 in all) are written to the ledger and put in the grab pool, and users can grab at once.

A launch cannot be undone; you can pause the campaign at any time.</source>
        <translation>“%1” goes live now: its %2 envelopes (%3 in all) are written to the ledger and put in the grab pool, and users can grab at once.

A launch cannot be undone; you can pause the campaign at any time.</translation>
    </message>
    <message>
        <source>Launch now</source>
        <translation>Launch now</translation>
    </message>
    <message>
        <source>Pause campaign #%1?</source>
        <translation>Pause campaign #%1?</translation>
    </message>
    <message>
        <source>Grabs of “%1” stop at once: every grab is answered “not live” until you resume it. Envelopes already grabbed are still paid out.</source>
        <translation>Grabs of “%1” stop at once: every grab is answered “not live” until you resume it. Envelopes already grabbed are still paid out.</translation>
    </message>
    <message>
        <source>Pause grabs</source>
        <translation>Pause grabs</translation>
    </message>
    <message>
        <source>Resume campaign #%1?</source>
        <translation>Resume campaign #%1?</translation>
    </message>
    <message>
        <source>Grabs of “%1” start again at once, for the %2 envelopes left (%3).</source>
        <translation>Grabs of “%1” start again at once, for the %2 envelopes left (%3).</translation>
    </message>
    <message>
        <source>Resume grabs</source>
        <translation>Resume grabs</translation>
    </message>
    <message>
        <source>Close campaign #%1?</source>
        <translation>Close campaign #%1?</translation>
    </message>
    <message>
        <source>Closing “%1” is final: grabs stop for good and the %2 envelopes left (%3) are refunded. Envelopes already grabbed are still paid out.

This cannot be undone.</source>
        <translation>Closing “%1” is final: grabs stop for good and the %2 envelopes left (%3) are refunded. Envelopes already grabbed are still paid out.

This cannot be undone.</translation>
    </message>
    <message>
        <source>Close and refund</source>
        <translation>Close and refund</translation>
    </message>
    <message>
        <source>Grabs of “%1” start again at once, but every envelope has been grabbed: users are told it is sold out.</source>
        <translation>Grabs of “%1” start again at once, but every envelope has been grabbed: users are told it is sold out.</translation>
    </message>
    <message>
        <source>Closing “%1” is final: grabs stop for good. Every envelope has been grabbed, so nothing is refunded; envelopes already grabbed are still paid out.

This cannot be undone.</source>
        <translation>Closing “%1” is final: grabs stop for good. Every envelope has been grabbed, so nothing is refunded; envelopes already grabbed are still paid out.

This cannot be undone.</translation>
    </message>
    <message>
        <source>Closing “%1” is final: grabs stop for good and the envelopes left then are refunded: about %2 envelopes (%3) as last read, fewer if the crowd grabs more before the close. Envelopes already grabbed are still paid out.

This cannot be undone.</source>
        <translation>Closing “%1” is final: grabs stop for good and the envelopes left then are refunded: about %2 envelopes (%3) as last read, fewer if the crowd grabs more before the close. Envelopes already grabbed are still paid out.

This cannot be undone.</translation>
    </message>
    <message>
        <source>Approve campaign #%1?</source>
        <translation>Approve campaign #%1?</translation>
    </message>
    <message>
        <source>“%1” (%2 envelopes, %3 in all) is above the four-eyes bound. %4 created it; your approval, as a second manager, lets any manager launch it, and is audited under your account.

Check the amounts and the split preview before you approve: an approval cannot be taken back.</source>
        <translation>“%1” (%2 envelopes, %3 in all) is above the four-eyes bound. %4 created it; your approval, as a second manager, lets any manager launch it, and is audited under your account.

Check the amounts and the split preview before you approve: an approval cannot be taken back.</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>Approve</translation>
    </message>
    <message>
        <source>Campaign #%1 was approved already, by %2; nothing changed.</source>
        <translation>Campaign #%1 was approved already, by %2; nothing changed.</translation>
    </message>
    <message>
        <source>Campaign #%1 already was %2; nothing changed.</source>
        <translation>Campaign #%1 already was %2; nothing changed.</translation>
    </message>
    <message>
        <source>Campaign #%1 is live: users can grab now.</source>
        <translation>Campaign #%1 is live: users can grab now.</translation>
    </message>
    <message>
        <source>Campaign #%1 is paused: every grab is refused until you resume it.</source>
        <translation>Campaign #%1 is paused: every grab is refused until you resume it.</translation>
    </message>
    <message>
        <source>Campaign #%1 is live again.</source>
        <translation>Campaign #%1 is live again.</translation>
    </message>
    <message>
        <source>Campaign #%1 is closed; %2 were refunded.</source>
        <translation>Campaign #%1 is closed; %2 were refunded.</translation>
    </message>
    <message>
        <source>Campaign #%1 is approved by %2: a manager can launch it now.</source>
        <translation>Campaign #%1 is approved by %2: a manager can launch it now.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignCreateDialog</name>
    <message>
        <source>New red-envelope campaign</source>
        <translation>New red-envelope campaign</translation>
    </message>
    <message>
        <source>The total is split into envelopes when the campaign is launched; the preview shows that exact split. Creating writes a draft and an audit log entry only: nobody can grab until you launch it.</source>
        <translation>The total is split into envelopes when the campaign is launched; the preview shows that exact split. Creating writes a draft and an audit log entry only: nobody can grab until you launch it.</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>e.g. Spring Festival 2025</source>
        <translation>e.g. Spring Festival 2025</translation>
    </message>
    <message>
        <source>&amp;Total (¥):</source>
        <translation>&amp;Total (¥):</translation>
    </message>
    <message>
        <source>e.g. 8888.88</source>
        <translation>e.g. 8888.88</translation>
    </message>
    <message>
        <source>&amp;Envelopes:</source>
        <translation>&amp;Envelopes:</translation>
    </message>
    <message>
        <source>e.g. 1000</source>
        <translation>e.g. 1000</translation>
    </message>
    <message>
        <source>&amp;Minimum each (¥):</source>
        <translation>&amp;Minimum each (¥):</translation>
    </message>
    <message>
        <source>&amp;Split:</source>
        <translation>&amp;Split:</translation>
    </message>
    <message>
        <source>The same seed always gives the same split, so an audit can replay it.</source>
        <translation>The same seed always gives the same split, so an audit can replay it.</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>Random</translation>
    </message>
    <message>
        <source>S&amp;eed:</source>
        <translation>S&amp;eed:</translation>
    </message>
    <message>
        <source>How often one user may try to grab; further tries are refused.</source>
        <translation>How often one user may try to grab; further tries are refused.</translation>
    </message>
    <message>
        <source>&amp;Attempts per user:</source>
        <translation>&amp;Attempts per user:</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>Envelopes</translation>
    </message>
    <message>
        <source>Amount per envelope (¥)</source>
        <translation>Amount per envelope (¥)</translation>
    </message>
    <message>
        <source>How the total is split</source>
        <translation>How the total is split</translation>
    </message>
    <message>
        <source>Create draft</source>
        <translation>Create draft</translation>
    </message>
    <message>
        <source>WeChat&apos;s rule: each envelope is drawn between the minimum and twice the average left. Early grabs vary little, the last ones a lot.</source>
        <translation>WeChat&apos;s rule: each envelope is drawn between the minimum and twice the average left. Early grabs vary little, the last ones a lot.</translation>
    </message>
    <message>
        <source>Everybody first gets an even share; only the rest is split by double mean. Amounts stay close together.</source>
        <translation>Everybody first gets an even share; only the rest is split by double mean. Amounts stay close together.</translation>
    </message>
    <message>
        <source>Random cuts along the total: every envelope has the same chance of any amount, whatever the grab order.</source>
        <translation>Random cuts along the total: every envelope has the same chance of any amount, whatever the grab order.</translation>
    </message>
    <message>
        <source>Fix the fields marked in red first.</source>
        <translation>Fix the fields marked in red first.</translation>
    </message>
    <message>
        <source>Enter your name as the operator first.</source>
        <translation>Enter your name as the operator first.</translation>
    </message>
    <message>
        <source>Computing the split…</source>
        <translation>Computing the split…</translation>
    </message>
    <message>
        <source>No preview: %1</source>
        <translation>No preview: %1</translation>
    </message>
    <message>
        <source>Enter a total, a number of envelopes and a seed to see the split.</source>
        <translation>Enter a total, a number of envelopes and a seed to see the split.</translation>
    </message>
    <message>
        <source>Fix the fields marked in red to see the split.</source>
        <translation>Fix the fields marked in red to see the split.</translation>
    </message>
    <message>
        <source>Smallest:</source>
        <translation>Smallest:</translation>
    </message>
    <message>
        <source>Largest:</source>
        <translation>Largest:</translation>
    </message>
    <message>
        <source>Mean:</source>
        <translation>Mean:</translation>
    </message>
    <message>
        <source>Median:</source>
        <translation>Median:</translation>
    </message>
    <message numerus="yes">
        <source>%Ln envelope(s) hold exactly the minimum.</source>
        <translation>
            <numerusform>%Ln envelope holds exactly the minimum.</numerusform>
            <numerusform>%Ln envelopes hold exactly the minimum.</numerusform>
        </translation>
    </message>
    <message>
        <source>The first grabs get %1 …</source>
        <translation>The first grabs get %1 …</translation>
    </message>
    <message>
        <source>Preview of all %1 envelopes, as launch will write them (seed %2).</source>
        <translation>Preview of all %1 envelopes, as launch will write them (seed %2).</translation>
    </message>
    <message>
        <source>, </source>
        <comment>separator between the items of a list</comment>
        <translation>, </translation>
    </message>
    <message>
        <source>Timetable:</source>
        <translation>Timetable:</translation>
    </message>
    <message>
        <source>Create scheduled draft</source>
        <translation>Create scheduled draft</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignDetailPanel</name>
    <message>
        <source>Drain</source>
        <translation>Drain</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>Envelopes</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>Amount</translation>
    </message>
    <message>
        <source>Grabbed</source>
        <translation>Grabbed</translation>
    </message>
    <message>
        <source>Saved to the ledger</source>
        <translation>Saved to the ledger</translation>
    </message>
    <message>
        <source>Paid out</source>
        <translation>Paid out</translation>
    </message>
    <message>
        <source>Remaining in the pool</source>
        <translation>Remaining in the pool</translation>
    </message>
    <message>
        <source>Refunded at close</source>
        <translation>Refunded at close</translation>
    </message>
    <message>
        <source>Campaign total</source>
        <translation>Campaign total</translation>
    </message>
    <message>
        <source>Ledger check</source>
        <translation>Ledger check</translation>
    </message>
    <message>
        <source>Grabs per second</source>
        <translation>Grabs per second</translation>
    </message>
    <message>
        <source>Select a campaign to watch it drain.</source>
        <translation>Select a campaign to watch it drain.</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>%1 in %Ln envelope(s) of at least %2 · %3 split, seed %4 · up to %5 grab attempts per user</source>
        <translation>
            <numerusform>%1 in %Ln envelope of at least %2 · %3 split, seed %4 · up to %5 grab attempts per user</numerusform>
            <numerusform>%1 in %Ln envelopes of at least %2 · %3 split, seed %4 · up to %5 grab attempts per user</numerusform>
        </translation>
    </message>
    <message>
        <source>Grabbed, payout pending</source>
        <translation>Grabbed, payout pending</translation>
    </message>
    <message>
        <source>Remaining</source>
        <translation>Remaining</translation>
    </message>
    <message>
        <source>Refunded</source>
        <translation>Refunded</translation>
    </message>
    <message>
        <source>Paid out %1</source>
        <translation>Paid out %1</translation>
    </message>
    <message>
        <source>Grabbed, payout pending %1</source>
        <translation>Grabbed, payout pending %1</translation>
    </message>
    <message>
        <source>Remaining %1</source>
        <translation>Remaining %1</translation>
    </message>
    <message>
        <source>Refunded %1</source>
        <translation>Refunded %1</translation>
    </message>
    <message>
        <source>✔ The ledger checks out: the split, one envelope per user, one payout per grab and, once closed, grabbed + refunded = total.</source>
        <translation>✔ The ledger checks out: the split, one envelope per user, one payout per grab and, once closed, grabbed + refunded = total.</translation>
    </message>
    <message>
        <source>Rule %1: %2</source>
        <translation>Rule %1: %2</translation>
    </message>
    <message>
        <source>Grabs happen only while the campaign is live.</source>
        <translation>Grabs happen only while the campaign is live.</translation>
    </message>
    <message>
        <source>The rate appears from the second refresh on (auto-refresh in the toolbar).</source>
        <translation>The rate appears from the second refresh on (auto-refresh in the toolbar).</translation>
    </message>
    <message numerus="yes">
        <source>Now %1 grabs/s, peak %2 grabs/s, over the last %n refresh(es).</source>
        <translation>
            <numerusform>Now %1 grabs/s, peak %2 grabs/s, over the last %n refresh.</numerusform>
            <numerusform>Now %1 grabs/s, peak %2 grabs/s, over the last %n refreshes.</numerusform>
        </translation>
    </message>
    <message>
        <source>Refused by the ledger (Redis had lost them)</source>
        <translation>Refused by the ledger (Redis had lost them)</translation>
    </message>
    <message>
        <source>⚠ %1</source>
        <translation>⚠ %1</translation>
    </message>
    <message>
        <source>Payout pending (in flight or to be retried)</source>
        <translation>Payout pending (in flight or to be retried)</translation>
    </message>
    <message>
        <source>Payouts per second</source>
        <translation>Payouts per second</translation>
    </message>
    <message>
        <source>Grabs and payouts per second</source>
        <translation>Grabs and payouts per second</translation>
    </message>
    <message numerus="yes">
        <source>Payouts: %1/s now · %2 pending at the provider or to be retried · %n provider error(s) (calls that did not pay, each retried with the same idempotency key)</source>
        <translation>
            <numerusform>Payouts: %1/s now · %2 pending at the provider or to be retried · %n provider error (a call that did not pay, retried with the same idempotency key)</numerusform>
            <numerusform>Payouts: %1/s now · %2 pending at the provider or to be retried · %n provider errors (calls that did not pay, each retried with the same idempotency key)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2 of %3 left, %4 grabbed, %5 borrowed</source>
        <extracomment>One sub-pool of a campaign: its name, envelopes left of those dealt to it, grabbed, borrowed from other pools.</extracomment>
        <translation>%1: %2 of %3 left, %4 grabbed, %5 borrowed</translation>
    </message>
    <message>
        <source>Sub-pools: %1</source>
        <translation>Sub-pools: %1</translation>
    </message>
    <message>
        <source>retry its dead letters in &lt;a href=&quot;view:queues&quot;&gt;Queues&lt;/a&gt;</source>
        <translation>retry its dead letters in &lt;a href=&quot;view:queues&quot;&gt;Queues&lt;/a&gt;</translation>
    </message>
    <message>
        <source>run a recovery in &lt;a href=&quot;view:recovery&quot;&gt;Recovery&lt;/a&gt;</source>
        <translation>run a recovery in &lt;a href=&quot;view:recovery&quot;&gt;Recovery&lt;/a&gt;</translation>
    </message>
    <message numerus="yes">
        <source>✘ %n rule(s) of the ledger are broken: %1, or escalate.</source>
        <translation>
            <numerusform>✘ %n rule of the ledger is broken: %1, or escalate.</numerusform>
            <numerusform>✘ %n rules of the ledger are broken: %1, or escalate.</numerusform>
        </translation>
    </message>
    <message>
        <source> and </source>
        <translation> and </translation>
    </message>
    <message>
        <source>Launches at %1 (in %2)</source>
        <translation>Launches at %1 (in %2)</translation>
    </message>
    <message>
        <source>Closes at %1 (in %2)</source>
        <translation>Closes at %1 (in %2)</translation>
    </message>
    <message>
        <source>Every grab and payout row was read, and the workers&apos; tally compared with them, as &lt;i&gt;lanternd verify&lt;/i&gt; does.</source>
        <translation>Every grab and payout row was read, and the workers&apos; tally compared with them, as &lt;i&gt;lanternd verify&lt;/i&gt; does.</translation>
    </message>
    <message>
        <source>Grabs and payouts are judged from the tally the workers keep as they write them; a row changed by hand is counted again, a row added by hand only by &lt;a href=&quot;check:rows&quot;&gt;a check of every row&lt;/a&gt;.</source>
        <translation>Grabs and payouts are judged from the tally the workers keep as they write them; a row changed by hand is counted again, a row added by hand only by &lt;a href=&quot;check:rows&quot;&gt;a check of every row&lt;/a&gt;.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignDrainBar</name>
    <message>
        <source>, </source>
        <comment>separator between the items of a list</comment>
        <translation>, </translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignListPane</name>
    <message>
        <source>Newer campaigns</source>
        <translation>Newer campaigns</translation>
    </message>
    <message>
        <source>Older campaigns</source>
        <translation>Older campaigns</translation>
    </message>
    <message>
        <source>Search campaigns by name or id</source>
        <translation>Search campaigns by name or id</translation>
    </message>
    <message>
        <source>List only the drafts above the four-eyes bound: who created each and who approved it</source>
        <translation>List only the drafts above the four-eyes bound: who created each and who approved it</translation>
    </message>
    <message>
        <source>No campaigns yet</source>
        <translation>No campaigns yet</translation>
    </message>
    <message>
        <source>%1–%2 of %3</source>
        <translation>%1–%2 of %3</translation>
    </message>
    <message numerus="yes">
        <source>Four eyes: %n awaiting approval</source>
        <translation>
            <numerusform>Four eyes: %n awaiting approval</numerusform>
            <numerusform>Four eyes: %n awaiting approval</numerusform>
        </translation>
    </message>
    <message>
        <source>Four eyes</source>
        <translation>Four eyes</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignTimesDialog</name>
    <message>
        <source>Times of campaign #%1</source>
        <translation>Times of campaign #%1</translation>
    </message>
    <message>
        <source>“%1”: a running worker (lanternd work) makes each change at its time, once, and the audit log records it under the name of whoever set the time. Untick a time to drop it.</source>
        <translation>“%1”: a running worker (lanternd work) makes each change at its time, once, and the audit log records it under the name of whoever set the time. Untick a time to drop it.</translation>
    </message>
    <message>
        <source>Save times</source>
        <translation>Save times</translation>
    </message>
    <message>
        <source>Nothing changed yet.</source>
        <translation>Nothing changed yet.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignTimesForm</name>
    <message>
        <source>&amp;Launch at</source>
        <translation>&amp;Launch at</translation>
    </message>
    <message>
        <source>Cl&amp;ose at</source>
        <translation>Cl&amp;ose at</translation>
    </message>
    <message>
        <source>A worker prepares the envelopes ahead and opens grabs at this second, on the servers&apos; clock.</source>
        <translation>A worker prepares the envelopes ahead and opens grabs at this second, on the servers&apos; clock.</translation>
    </message>
    <message>
        <source>A worker closes the campaign at this second and refunds what is left, as Close does.</source>
        <translation>A worker closes the campaign at this second and refunds what is left, as Close does.</translation>
    </message>
    <message>
        <source>however late</source>
        <translation>however late</translation>
    </message>
    <message>
        <source> min</source>
        <translation> min</translation>
    </message>
    <message>
        <source>When no worker was running at the time, a worker that comes back makes the change late; past this limit it is skipped and marked missed instead.</source>
        <translation>When no worker was running at the time, a worker that comes back makes the change late; past this limit it is skipped and marked missed instead.</translation>
    </message>
    <message>
        <source>Late &amp;limit:</source>
        <translation>Late &amp;limit:</translation>
    </message>
    <message>
        <source>There is no such local time in %1 (the clocks skip it).</source>
        <translation>There is no such local time in %1 (the clocks skip it).</translation>
    </message>
    <message>
        <source>Times in %1 (%2). The servers&apos; clock says %3.</source>
        <translation>Times in %1 (%2). The servers&apos; clock says %3.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignsView</name>
    <message>
        <source>Connecting…</source>
        <translation>Connecting…</translation>
    </message>
    <message>
        <source>Select a campaign to watch it drain.</source>
        <translation>Select a campaign to watch it drain.</translation>
    </message>
    <message>
        <source>Loading campaign #%1…</source>
        <translation>Loading campaign #%1…</translation>
    </message>
    <message>
        <source>No campaigns yet. Press “New campaign…” to create one.</source>
        <translation>No campaigns yet. Press “New campaign…” to create one.</translation>
    </message>
    <message>
        <source>Draft #%1 “%2” created. Nobody can grab yet: check it below, then launch it.</source>
        <translation>Draft #%1 “%2” created. Nobody can grab yet: check it below, then launch it.</translation>
    </message>
    <message>
        <source>The campaigns could not be read.</source>
        <translation>The campaigns could not be read.</translation>
    </message>
    <message>
        <source>Campaigns</source>
        <translation>Campaigns</translation>
    </message>
    <message>
        <source>No campaigns yet.</source>
        <translation>No campaigns yet.</translation>
    </message>
    <message>
        <source>launch at %1</source>
        <translation>launch at %1</translation>
    </message>
    <message>
        <source>close at %1</source>
        <translation>close at %1</translation>
    </message>
    <message>
        <source>Campaign #%1 has no times any more: it waits for a Launch or Close by hand.</source>
        <translation>Campaign #%1 has no times any more: it waits for a Launch or Close by hand.</translation>
    </message>
    <message>
        <source>Times of campaign #%1 saved: %2. A running worker makes each change at its time.</source>
        <translation>Times of campaign #%1 saved: %2. A running worker makes each change at its time.</translation>
    </message>
    <message>
        <source>; </source>
        <comment>separator between scheduled times</comment>
        <translation>; </translation>
    </message>
</context>
<context>
    <name>lantern::ui::CheckinStatsView</name>
    <message>
        <source>&amp;Show</source>
        <translation>&amp;Show</translation>
    </message>
    <message>
        <source>Checked in</source>
        <translation>Checked in</translation>
    </message>
    <message>
        <source>Make-ups</source>
        <translation>Make-ups</translation>
    </message>
    <message>
        <source>Month:</source>
        <translation>Month:</translation>
    </message>
    <message>
        <source>Users who checked in at least once this month</source>
        <translation>Users who checked in at least once this month</translation>
    </message>
    <message>
        <source>Users who checked in on every day of the month so far, make-ups included</source>
        <translation>Users who checked in on every day of the month so far, make-ups included</translation>
    </message>
    <message>
        <source>Active this month: %1</source>
        <translation>Active this month: %1</translation>
    </message>
    <message>
        <source>Every day so far: %1</source>
        <translation>Every day so far: %1</translation>
    </message>
    <message>
        <source>Check-ins and make-ups per day, %1</source>
        <translation>Check-ins and make-ups per day, %1</translation>
    </message>
    <message>
        <source>Could not read the check-in statistics.</source>
        <translation>Could not read the check-in statistics.</translation>
    </message>
    <message>
        <source>Check-in statistics</source>
        <translation>Check-in statistics</translation>
    </message>
    <message>
        <source>MMMM yyyy</source>
        <extracomment>The month in the chart&apos;s title, as QDate::toString formats it (&quot;April 2026&quot;; &quot;2026年4月&quot;)</extracomment>
        <translation>MMMM yyyy</translation>
    </message>
    <message>
        <source>The figures a worker keeps, read from every user&apos;s bits once a minute</source>
        <translation>The figures a worker keeps, read from every user&apos;s bits once a minute</translation>
    </message>
    <message>
        <source>As of %1</source>
        <extracomment>When the figures shown were read by a worker (they are kept, not read on each refresh).</extracomment>
        <translation>As of %1</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionCheckReport</name>
    <message>
        <source>%1 ms</source>
        <extracomment>A round trip time in milliseconds, e.g. &quot;0.42 ms&quot;.</extracomment>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>PING answered in %1</source>
        <translation>PING answered in %1</translation>
    </message>
    <message>
        <source>Redis %1</source>
        <translation>Redis %1</translation>
    </message>
    <message>
        <source>Redis</source>
        <translation>Redis</translation>
    </message>
    <message>
        <source>SELECT 1 answered in %1</source>
        <translation>SELECT 1 answered in %1</translation>
    </message>
    <message>
        <source>schema version %1</source>
        <translation>schema version %1</translation>
    </message>
    <message>
        <source>no Lantern tables yet</source>
        <translation>no Lantern tables yet</translation>
    </message>
    <message>
        <source>SQL</source>
        <translation>SQL</translation>
    </message>
    <message>
        <source>Tested read-only: nothing was written.</source>
        <translation>Tested read-only: nothing was written.</translation>
    </message>
    <message>
        <source>Redis Cluster</source>
        <translation>Redis Cluster</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <extracomment>How many nodes a Redis Cluster has, e.g. &quot;6 nodes&quot; (followed by &quot;3 masters&quot;).</extracomment>
        <translation>
            <numerusform>%n node</numerusform>
            <numerusform>%n nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n master(s)</source>
        <extracomment>How many of a Redis Cluster&apos;s nodes are masters, e.g. &quot;3 masters&quot;.</extracomment>
        <translation>
            <numerusform>%n master</numerusform>
            <numerusform>%n masters</numerusform>
        </translation>
    </message>
    <message>
        <source>master, slots %1</source>
        <translation>master, slots %1</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>replica</source>
        <translation>replica</translation>
    </message>
    <message>
        <source>replica of %1</source>
        <translation>replica of %1</translation>
    </message>
    <message>
        <source>the cluster marks it failing</source>
        <translation>the cluster marks it failing</translation>
    </message>
    <message>
        <source>not reachable</source>
        <translation>not reachable</translation>
    </message>
    <message>
        <source>cluster_state: %1, %2 of 16384 slots served</source>
        <extracomment>The Redis Cluster&apos;s own state when it is not &quot;ok&quot;, e.g. &quot;cluster_state: fail, 10923 of 16384 slots served&quot;.</extracomment>
        <translation>cluster_state: %1, %2 of 16384 slots served</translation>
    </message>
    <message>
        <source>Sentinel</source>
        <translation>Sentinel</translation>
    </message>
    <message>
        <source>master %1</source>
        <translation>master %1</translation>
    </message>
    <message>
        <source>TLS</source>
        <translation>TLS</translation>
    </message>
    <message>
        <source>role %1</source>
        <extracomment>The role Redis answers with, as INFO names it: &quot;master&quot; or &quot;slave&quot;.</extracomment>
        <translation>role %1</translation>
    </message>
    <message>
        <source>at %1</source>
        <translation>at %1</translation>
    </message>
    <message>
        <source>SSH</source>
        <translation>SSH</translation>
    </message>
    <message>
        <source>SQL TLS</source>
        <translation>SQL TLS</translation>
    </message>
    <message>
        <source>The chain was checked against the CA, not the host name (Qt 6.4&apos;s MySQL driver).</source>
        <translation>The chain was checked against the CA, not the host name (Qt 6.4&apos;s MySQL driver).</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionProfileForm</name>
    <message>
        <source>Profile</source>
        <translation>Profile</translation>
    </message>
    <message>
        <source>Read-only: only reads reach Redis and SQL; every change is refused</source>
        <translation>Read-only: only reads reach Redis and SQL; every change is refused</translation>
    </message>
    <message>
        <source>e.g. production</source>
        <translation>e.g. production</translation>
    </message>
    <message>
        <source>Letters, digits, “_”, “.” and “-”; use it as lantern --profile NAME</source>
        <translation>Letters, digits, “_”, “.” and “-”; use it as lantern --profile NAME</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>System time zone (%1)</source>
        <translation>System time zone (%1)</translation>
    </message>
    <message>
        <source>Enforced by the connections themselves: Redis commands outside a list of reads and SQL other than SELECT are never sent, whatever a view or lanternd tries.</source>
        <translation>Enforced by the connections themselves: Redis commands outside a list of reads and SQL other than SELECT are never sent, whatever a view or lanternd tries.</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Redis URL</source>
        <translation>Redis URL</translation>
    </message>
    <message>
        <source>Redis password</source>
        <translation>Redis password</translation>
    </message>
    <message>
        <source>SQL URL</source>
        <translation>SQL URL</translation>
    </message>
    <message>
        <source>SQL password</source>
        <translation>SQL password</translation>
    </message>
    <message>
        <source>Key prefix</source>
        <translation>Key prefix</translation>
    </message>
    <message>
        <source>Time zone</source>
        <translation>Time zone</translation>
    </message>
    <message>
        <source>reading the keychain…</source>
        <translation>reading the keychain…</translation>
    </message>
    <message>
        <source>No keychain service answers on this machine, so passwords are kept in memory until the console closes — never on disk. Type them again after a restart.</source>
        <translation>No keychain service answers on this machine, so passwords are kept in memory until the console closes — never on disk. Type them again after a restart.</translation>
    </message>
    <message>
        <source>Passwords are kept in the system keychain, never in the profile file.</source>
        <translation>Passwords are kept in the system keychain, never in the profile file.</translation>
    </message>
    <message>
        <source>Servers</source>
        <translation>Servers</translation>
    </message>
    <message>
        <source>TLS</source>
        <translation>TLS</translation>
    </message>
    <message>
        <source>Sentinel</source>
        <translation>Sentinel</translation>
    </message>
    <message>
        <source>SSH tunnel</source>
        <translation>SSH tunnel</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionProfileList</name>
    <message>
        <source>No saved profiles yet: fill in the form and press Save.</source>
        <translation>No saved profiles yet: fill in the form and press Save.</translation>
    </message>
    <message>
        <source>New</source>
        <translation>New</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>Delete…</translation>
    </message>
    <message>
        <source>Saved profiles</source>
        <translation>Saved profiles</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionQuestions</name>
    <message>
        <source>Switch</source>
        <translation>Switch</translation>
    </message>
    <message>
        <source>Trust this SSH server?</source>
        <translation>Trust this SSH server?</translation>
    </message>
    <message>
        <source>The SSH server %1 is not in your known_hosts file yet.

Its host key&apos;s fingerprint is
%2

Compare it with the fingerprint its administrator gives you (ssh-keygen -lf on the server&apos;s host key). Only if they are the same, trust it: the key is written to ~/.ssh/known_hosts, and a different key later is refused.</source>
        <translation>The SSH server %1 is not in your known_hosts file yet.

Its host key&apos;s fingerprint is
%2

Compare it with the fingerprint its administrator gives you (ssh-keygen -lf on the server&apos;s host key). Only if they are the same, trust it: the key is written to ~/.ssh/known_hosts, and a different key later is refused.</translation>
    </message>
    <message>
        <source>Trust and connect</source>
        <translation>Trust and connect</translation>
    </message>
    <message>
        <source>Redis answered in %1 and SQL in %2. Every view reconnects to “%3”; what they show now is read again.</source>
        <translation>Redis answered in %1 and SQL in %2. Every view reconnects to “%3”; what they show now is read again.</translation>
    </message>
    <message>
        <source>The sandbox stops: its private Redis server and its worker end, and its demo data is discarded (a sandbox started later begins with fresh demo data).</source>
        <translation>The sandbox stops: its private Redis server and its worker end, and its demo data is discarded (a sandbox started later begins with fresh demo data).</translation>
    </message>
    <message>
        <source>The console leaves %1.</source>
        <translation>The console leaves %1.</translation>
    </message>
    <message>
        <source>“%1” is read-only: every change will be refused.</source>
        <translation>“%1” is read-only: every change will be refused.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionsView</name>
    <message>
        <source>Test connection</source>
        <translation>Test connection</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Save</translation>
    </message>
    <message>
        <source>Use this profile</source>
        <translation>Use this profile</translation>
    </message>
    <message>
        <source>Not connected yet.</source>
        <translation>Not connected yet.</translation>
    </message>
    <message>
        <source>Delete profile</source>
        <translation>Delete profile</translation>
    </message>
    <message>
        <source>Delete the profile “%1” and its saved passwords?</source>
        <translation>Delete the profile “%1” and its saved passwords?</translation>
    </message>
    <message>
        <source>Connect to both servers and measure one round trip each (Redis PING, SQL SELECT 1)</source>
        <translation>Connect to both servers and measure one round trip each (Redis PING, SQL SELECT 1)</translation>
    </message>
    <message>
        <source>Save the profile; passwords go to the system keychain, never into the file</source>
        <translation>Save the profile; passwords go to the system keychain, never into the file</translation>
    </message>
    <message>
        <source>no saved profile</source>
        <translation>no saved profile</translation>
    </message>
    <message>
        <source>In use: &lt;b&gt;%1&lt;/b&gt; — Redis %2 · SQL %3 · key prefix %4 · %5</source>
        <translation>In use: &lt;b&gt;%1&lt;/b&gt; — Redis %2 · SQL %3 · key prefix %4 · %5</translation>
    </message>
    <message>
        <source>read-only</source>
        <translation>read-only</translation>
    </message>
    <message>
        <source>Profile “%1” saved.</source>
        <translation>Profile “%1” saved.</translation>
    </message>
    <message>
        <source>Profile “%1” deleted.</source>
        <translation>Profile “%1” deleted.</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>Testing…</translation>
    </message>
    <message>
        <source>Give the profile a name first.</source>
        <translation>Give the profile a name first.</translation>
    </message>
    <message>
        <source>Switching the console to “%1”…</source>
        <translation>Switching the console to “%1”…</translation>
    </message>
    <message>
        <source>down</source>
        <translation>down</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>Connections</translation>
    </message>
    <message>
        <source>Test this profile&apos;s servers, then, once you confirm, reconnect the whole console to them</source>
        <translation>Test this profile&apos;s servers, then, once you confirm, reconnect the whole console to them</translation>
    </message>
    <message>
        <source>Testing the servers of “%1” before switching…</source>
        <translation>Testing the servers of “%1” before switching…</translation>
    </message>
    <message>
        <source>the sandbox</source>
        <translation>the sandbox</translation>
    </message>
    <message>
        <source>the servers given on the command line</source>
        <translation>the servers given on the command line</translation>
    </message>
    <message>
        <source>“%1”</source>
        <translation>“%1”</translation>
    </message>
    <message>
        <source>Not switched to “%1”: %2 The console stays on %3.</source>
        <translation>Not switched to “%1”: %2 The console stays on %3.</translation>
    </message>
    <message>
        <source>Switch the console to “%1”?</source>
        <translation>Switch the console to “%1”?</translation>
    </message>
    <message>
        <source>Still on %1: nothing was switched.</source>
        <translation>Still on %1: nothing was switched.</translation>
    </message>
    <message>
        <source>Back to the sandbox…</source>
        <translation>Back to the sandbox…</translation>
    </message>
    <message>
        <source>Leave these servers for a fresh sandbox: a private Redis and an SQLite file with demo data</source>
        <translation>Leave these servers for a fresh sandbox: a private Redis and an SQLite file with demo data</translation>
    </message>
    <message>
        <source>“%1” points at this console&apos;s sandbox (Redis %2), which stops when the console leaves it: the session would land on a server that is gone. Choose a profile of other servers; the console stays on the sandbox.</source>
        <translation>“%1” points at this console&apos;s sandbox (Redis %2), which stops when the console leaves it: the session would land on a server that is gone. Choose a profile of other servers; the console stays on the sandbox.</translation>
    </message>
    <message>
        <source>Every view reconnects to a fresh sandbox: a private Redis server and an SQLite file with demo data, on this computer. The console leaves %1.</source>
        <translation>Every view reconnects to a fresh sandbox: a private Redis server and an SQLite file with demo data, on this computer. The console leaves %1.</translation>
    </message>
    <message>
        <source>Switch the console to the sandbox?</source>
        <translation>Switch the console to the sandbox?</translation>
    </message>
    <message>
        <source>through the SSH tunnel %1</source>
        <translation>through the SSH tunnel %1</translation>
    </message>
    <message>
        <source>TLS not verified</source>
        <translation>TLS not verified</translation>
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
        <source>Select this day (YYYY-MM-DD) in the calendar.</source>
        <translation>Select this day (YYYY-MM-DD) in the calendar.</translation>
    </message>
    <message>
        <source>date</source>
        <translation>date</translation>
    </message>
    <message>
        <source>true: refuse every write where commands are sent (Redis and SQL).</source>
        <translation>true: refuse every write where commands are sent (Redis and SQL).</translation>
    </message>
    <message>
        <source>Show this campaign (its id).</source>
        <translation>Show this campaign (its id).</translation>
    </message>
    <message>
        <source>id</source>
        <translation>id</translation>
    </message>
    <message>
        <source>unknown view &apos;%1&apos;: expected one of %2</source>
        <translation>unknown view &apos;%1&apos;: expected one of %2</translation>
    </message>
    <message>
        <source>invalid --campaign &apos;%1&apos;: expected a campaign id (a positive whole number)</source>
        <translation>invalid --campaign &apos;%1&apos;: expected a campaign id (a positive whole number)</translation>
    </message>
    <message>
        <source>Colours: system (the default), light or dark.</source>
        <translation>Colours: system (the default), light or dark.</translation>
    </message>
    <message>
        <source>theme</source>
        <translation>theme</translation>
    </message>
    <message>
        <source>invalid --theme &apos;%1&apos;: expected system, light or dark</source>
        <translation>invalid --theme &apos;%1&apos;: expected system, light or dark</translation>
    </message>
    <message>
        <source>The view to open or render: users, campaigns, queues, recovery, audit, connections, stats.</source>
        <translation>The view to open or render: users, campaigns, queues, recovery, audit, connections, stats.</translation>
    </message>
    <message>
        <source>The window&apos;s size in logical pixels, e.g. 1366x768 (a screenshot&apos;s too).</source>
        <translation>The window&apos;s size in logical pixels, e.g. 1366x768 (a screenshot&apos;s too).</translation>
    </message>
    <message>
        <source>WxH</source>
        <translation>WxH</translation>
    </message>
    <message>
        <source>invalid --size &apos;%1&apos;: expected WIDTHxHEIGHT in pixels, e.g. 1366x768</source>
        <translation>invalid --size &apos;%1&apos;: expected WIDTHxHEIGHT in pixels, e.g. 1366x768</translation>
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
    <message>
        <source>Worker: running again</source>
        <translation>Worker: running again</translation>
    </message>
</context>
<context>
    <name>lantern::ui::DeadLetterEditDialog</name>
    <message>
        <source>Edit and retry</source>
        <translation>Edit and retry</translation>
    </message>
    <message>
        <source>Correct the entry, then put it back on the queue of %1 in place of the one stored. The audit log keeps both versions.</source>
        <translation>Correct the entry, then put it back on the queue of %1 in place of the one stored. The audit log keeps both versions.</translation>
    </message>
    <message>
        <source>Put it back on the queue</source>
        <translation>Put it back on the queue</translation>
    </message>
    <message>
        <source>Unchanged: correct the entry first (Retry puts it back as it is).</source>
        <translation>Unchanged: correct the entry first (Retry puts it back as it is).</translation>
    </message>
    <message>
        <source>A worker of %1 could not read this: it is not a task of that queue.</source>
        <translation>A worker of %1 could not read this: it is not a task of that queue.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::DeadLetterPanel</name>
    <message>
        <source>Retry</source>
        <translation>Retry</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>Discard</translation>
    </message>
    <message>
        <source>Retry all…</source>
        <translation>Retry all…</translation>
    </message>
    <message>
        <source>Discard all…</source>
        <translation>Discard all…</translation>
    </message>
    <message>
        <source>Dead letters</source>
        <translation>Dead letters</translation>
    </message>
    <message>
        <source>Put the selected entries back on their queue</source>
        <translation>Put the selected entries back on their queue</translation>
    </message>
    <message>
        <source>Remove the selected entries for good (the audit log keeps a copy)</source>
        <translation>Remove the selected entries for good (the audit log keeps a copy)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>No dead letters</source>
        <translation>No dead letters</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>empty</translation>
    </message>
    <message>
        <source>%1–%2 of %3</source>
        <translation>%1–%2 of %3</translation>
    </message>
    <message>
        <source>Retry dead letters</source>
        <translation>Retry dead letters</translation>
    </message>
    <message numerus="yes">
        <source>Put all %n entry(s) of “%1” back on its queue?</source>
        <translation>
            <numerusform>Put the %n entry of “%1” back on its queue?</numerusform>
            <numerusform>Put all %n entries of “%1” back on its queue?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Put %n selected entry(s) of “%1” back on its queue?</source>
        <translation>
            <numerusform>Put %n selected entry of “%1” back on its queue?</numerusform>
            <numerusform>Put %n selected entries of “%1” back on its queue?</numerusform>
        </translation>
    </message>
    <message>
        <source>Workers will process them again; a payout keeps its idempotency key, so nothing is paid twice.</source>
        <translation>Workers will process them again; a payout keeps its idempotency key, so nothing is paid twice.</translation>
    </message>
    <message>
        <source>Retry all</source>
        <translation>Retry all</translation>
    </message>
    <message>
        <source>Discard dead letters</source>
        <translation>Discard dead letters</translation>
    </message>
    <message numerus="yes">
        <source>Discard all %n entry(s) of “%1”?</source>
        <translation>
            <numerusform>Discard the %n entry of “%1”?</numerusform>
            <numerusform>Discard all %n entries of “%1”?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Discard %n selected entry(s) of “%1”?</source>
        <translation>
            <numerusform>Discard %n selected entry of “%1”?</numerusform>
            <numerusform>Discard %n selected entries of “%1”?</numerusform>
        </translation>
    </message>
    <message>
        <source>They are removed for good; the audit log keeps a copy of each.</source>
        <translation>They are removed for good; the audit log keeps a copy of each.</translation>
    </message>
    <message>
        <source>Discard all</source>
        <translation>Discard all</translation>
    </message>
    <message numerus="yes">
        <source>Retrying %n entry(s)…</source>
        <translation>
            <numerusform>Retrying %n entry…</numerusform>
            <numerusform>Retrying %n entries…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Discarding %n entry(s)…</source>
        <translation>
            <numerusform>Discarding %n entry…</numerusform>
            <numerusform>Discarding %n entries…</numerusform>
        </translation>
    </message>
    <message>
        <source>Select an entry to see it as it is stored, byte for byte.</source>
        <translation>Select an entry to see it as it is stored, byte for byte.</translation>
    </message>
    <message>
        <source>Set aside before Lantern kept the reason: when and why were not recorded.</source>
        <translation>Set aside before Lantern kept the reason: when and why were not recorded.</translation>
    </message>
    <message>
        <source>Set aside %1: %2</source>
        <translation>Set aside %1: %2</translation>
    </message>
    <message>
        <source>no reason given</source>
        <translation>no reason given</translation>
    </message>
    <message numerus="yes">
        <source>(after %n tries)</source>
        <translation>
            <numerusform>(after %n try)</numerusform>
            <numerusform>(after %n tries)</numerusform>
        </translation>
    </message>
    <message>
        <source>Edit and retry…</source>
        <translation>Edit and retry…</translation>
    </message>
    <message>
        <source>Correct the selected entry and put it back on its queue in its place</source>
        <translation>Correct the selected entry and put it back on its queue in its place</translation>
    </message>
    <message>
        <source>A worker cannot read this entry, so a retry would bring it straight back here. Correct it with “Edit and retry…”, or discard it (the audit log keeps a copy).</source>
        <translation>A worker cannot read this entry, so a retry would bring it straight back here. Correct it with “Edit and retry…”, or discard it (the audit log keeps a copy).</translation>
    </message>
    <message>
        <source>Putting the edited entry back…</source>
        <translation>Putting the edited entry back…</translation>
    </message>
    <message>
        <source>Previous page</source>
        <translation>Previous page</translation>
    </message>
    <message>
        <source>Next page</source>
        <translation>Next page</translation>
    </message>
    <message>
        <source>This list holds more than %1 entries: it can be shown newest or oldest first (click “#”), not sorted by another column.</source>
        <translation>This list holds more than %1 entries: it can be shown newest or oldest first (click “#”), not sorted by another column.</translation>
    </message>
    <message>
        <source>This list now holds more than %1 entries: it is shown by position instead.</source>
        <translation>This list now holds more than %1 entries: it is shown by position instead.</translation>
    </message>
    <message>
        <source>Entries a worker cannot read stay in the list, to be edited or discarded.</source>
        <translation>Entries a worker cannot read stay in the list, to be edited or discarded.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::FilePathField</name>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>Choose…</translation>
    </message>
</context>
<context>
    <name>lantern::ui::MainWindow</name>
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
    <message>
        <source>&amp;View</source>
        <translation>&amp;View</translation>
    </message>
    <message>
        <source>&amp;Refresh now</source>
        <translation>&amp;Refresh now</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <source>Auto-refresh:</source>
        <translation>Auto-refresh:</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Off</translation>
    </message>
    <message numerus="yes">
        <source>every %n s</source>
        <translation>
            <numerusform>every %n s</numerusform>
            <numerusform>every %n s</numerusform>
        </translation>
    </message>
    <message>
        <source>Lantern Console — %1</source>
        <translation>Lantern Console — %1</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Resume</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Auto-refresh is paused: what you see stays as it is.</source>
        <translation>Auto-refresh is paused: what you see stays as it is.</translation>
    </message>
    <message>
        <source>Pause auto-refresh</source>
        <translation>Pause auto-refresh</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Language</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>System language</translation>
    </message>
    <message>
        <source>English</source>
        <comment>the English language, keep its own name</comment>
        <translation>English</translation>
    </message>
    <message>
        <source>Chinese (Simplified) — 简体中文</source>
        <comment>the Chinese language, in its own name</comment>
        <translation>Chinese (Simplified) — 简体中文</translation>
    </message>
    <message>
        <source>Read-only</source>
        <translation>Read-only</translation>
    </message>
    <message>
        <source>This connection refuses every change: look-ups and views work, make-ups, campaign actions, dead-letter and recovery actions are disabled.</source>
        <translation>This connection refuses every change: look-ups and views work, make-ups, campaign actions, dead-letter and recovery actions are disabled.</translation>
    </message>
    <message>
        <source>Set &amp;operator name…</source>
        <translation>Set &amp;operator name…</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>&amp;Theme</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>Follow the system</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Light</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dark</translation>
    </message>
    <message>
        <source>Sandbox crowd:</source>
        <translation>Sandbox crowd:</translation>
    </message>
    <message>
        <source> grabs/s</source>
        <translation> grabs/s</translation>
    </message>
    <message>
        <source>off</source>
        <translation>off</translation>
    </message>
    <message>
        <source>Simulated users grab this many envelopes per second from every live campaign of the sandbox, including the ones you create and launch.</source>
        <translation>Simulated users grab this many envelopes per second from every live campaign of the sandbox, including the ones you create and launch.</translation>
    </message>
    <message>
        <source>…</source>
        <comment>a server not heard from yet</comment>
        <translation>…</translation>
    </message>
    <message>
        <source>up</source>
        <translation>up</translation>
    </message>
    <message>
        <source>Redis and SQL as last heard of (Redis at %1, SQL at %2): every answer a view gets counts, and a PING and a SELECT 1 measure the round trips every 15 seconds and whenever a request fails.</source>
        <translation>Redis and SQL as last heard of (Redis at %1, SQL at %2): every answer a view gets counts, and a PING and a SELECT 1 measure the round trips every 15 seconds and whenever a request fails.</translation>
    </message>
    <message>
        <source>Operator: %1</source>
        <translation>Operator: %1</translation>
    </message>
    <message>
        <source>Every change you make is recorded in the audit log under this name. Click to change it.</source>
        <translation>Every change you make is recorded in the audit log under this name. Click to change it.</translation>
    </message>
    <message>
        <source>Operator: not set</source>
        <translation>Operator: not set</translation>
    </message>
    <message>
        <source>No operator name yet: the first change you make asks for it, since every change is recorded in the audit log under a name. Click to set it now.</source>
        <translation>No operator name yet: the first change you make asks for it, since every change is recorded in the audit log under a name. Click to set it now.</translation>
    </message>
    <message>
        <source>&amp;Alerts…</source>
        <translation>&amp;Alerts…</translation>
    </message>
    <message>
        <source>Account: %1</source>
        <translation>Account: %1</translation>
    </message>
    <message>
        <source>You are signed in to the servers with this account: they record it in the audit log and allow only what its role may do.</source>
        <translation>You are signed in to the servers with this account: they record it in the audit log and allow only what its role may do.</translation>
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
        <source>&amp;Reason:</source>
        <translation>&amp;Reason:</translation>
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
    <name>lantern::ui::OperatorDialog</name>
    <message>
        <source>Change the operator</source>
        <translation>Change the operator</translation>
    </message>
    <message>
        <source>Who is at the console?</source>
        <translation>Who is at the console?</translation>
    </message>
    <message>
        <source>Every change made in this console — make-ups, campaign actions, dead letters, recovery — is recorded in the audit log under this name, until you change it here or close the console.</source>
        <translation>Every change made in this console — make-ups, campaign actions, dead letters, recovery — is recorded in the audit log under this name, until you change it here or close the console.</translation>
    </message>
    <message>
        <source>Your name</source>
        <translation>Your name</translation>
    </message>
    <message>
        <source>&amp;Operator:</source>
        <translation>&amp;Operator:</translation>
    </message>
    <message>
        <source>Use this name</source>
        <translation>Use this name</translation>
    </message>
</context>
<context>
    <name>lantern::ui::OperatorIdentity</name>
    <message>
        <source>Enter the name the audit log records for your changes.</source>
        <translation>Enter the name the audit log records for your changes.</translation>
    </message>
    <message numerus="yes">
        <source>At most %n characters.</source>
        <translation>
            <numerusform>At most %n character.</numerusform>
            <numerusform>At most %n characters.</numerusform>
        </translation>
    </message>
    <message>
        <source>No control characters, please.</source>
        <translation>No control characters, please.</translation>
    </message>
    <message>
        <source>The session&apos;s operator, recorded in the audit log; change it in the window&apos;s status bar.</source>
        <translation>The session&apos;s operator, recorded in the audit log; change it in the window&apos;s status bar.</translation>
    </message>
    <message>
        <source>Operator:</source>
        <translation>Operator:</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ProfileSentinelFields</name>
    <message>
        <source>Find the master through Redis Sentinel</source>
        <translation>Find the master through Redis Sentinel</translation>
    </message>
    <message>
        <source>Every connection asks the sentinels for the master, so the console follows a failover by itself</source>
        <translation>Every connection asks the sentinels for the master, so the console follows a failover by itself</translation>
    </message>
    <message>
        <source>e.g. mymaster</source>
        <translation>e.g. mymaster</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>The user and password on the Servers tab are the master&apos;s; these are the sentinels&apos; own, when they ask for one (requirepass or an ACL user on the sentinels).</source>
        <translation>The user and password on the Servers tab are the master&apos;s; these are the sentinels&apos; own, when they ask for one (requirepass or an ACL user on the sentinels).</translation>
    </message>
    <message>
        <source>Sentinels</source>
        <translation>Sentinels</translation>
    </message>
    <message>
        <source>Master name</source>
        <translation>Master name</translation>
    </message>
    <message>
        <source>Sentinel user</source>
        <translation>Sentinel user</translation>
    </message>
    <message>
        <source>Sentinel password</source>
        <translation>Sentinel password</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ProfileSshFields</name>
    <message>
        <source>Reach the servers through an SSH tunnel</source>
        <translation>Reach the servers through an SSH tunnel</translation>
    </message>
    <message>
        <source>The SSH private key</source>
        <translation>The SSH private key</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>All files (*)</translation>
    </message>
    <message>
        <source>Redis and the database are reached as the SSH server reaches them: give their addresses as seen from there</source>
        <translation>Redis and the database are reached as the SSH server reaches them: give their addresses as seen from there</translation>
    </message>
    <message>
        <source>e.g. bastion.example.com</source>
        <translation>e.g. bastion.example.com</translation>
    </message>
    <message>
        <source>e.g. ops</source>
        <translation>e.g. ops</translation>
    </message>
    <message>
        <source>SSH agent (ssh-add)</source>
        <translation>SSH agent (ssh-add)</translation>
    </message>
    <message>
        <source>Key file</source>
        <translation>Key file</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>Password</translation>
    </message>
    <message>
        <source>The server&apos;s host key is checked against ~/.ssh/known_hosts: the first time, the console shows its fingerprint and asks; a key that changed is refused.</source>
        <translation>The server&apos;s host key is checked against ~/.ssh/known_hosts: the first time, the console shows its fingerprint and asks; a key that changed is refused.</translation>
    </message>
    <message>
        <source>SSH server</source>
        <translation>SSH server</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <source>User</source>
        <translation>User</translation>
    </message>
    <message>
        <source>Log in with</source>
        <translation>Log in with</translation>
    </message>
    <message>
        <source>Key passphrase</source>
        <translation>Key passphrase</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ProfileTlsFields</name>
    <message>
        <source>PEM files (*.pem *.crt *.key *.cer);;All files (*)</source>
        <translation>PEM files (*.pem *.crt *.key *.cer);;All files (*)</translation>
    </message>
    <message>
        <source>Connect to Redis over TLS (rediss://)</source>
        <translation>Connect to Redis over TLS (rediss://)</translation>
    </message>
    <message>
        <source>The CA that signs the Redis servers&apos; certificates</source>
        <translation>The CA that signs the Redis servers&apos; certificates</translation>
    </message>
    <message>
        <source>The client certificate for Redis (mutual TLS)</source>
        <translation>The client certificate for Redis (mutual TLS)</translation>
    </message>
    <message>
        <source>The client certificate&apos;s key</source>
        <translation>The client certificate&apos;s key</translation>
    </message>
    <message>
        <source>The CA that signs the database server&apos;s certificate</source>
        <translation>The CA that signs the database server&apos;s certificate</translation>
    </message>
    <message>
        <source>The client certificate for the database (REQUIRE X509)</source>
        <translation>The client certificate for the database (REQUIRE X509)</translation>
    </message>
    <message>
        <source>The database client certificate&apos;s key</source>
        <translation>The database client certificate&apos;s key</translation>
    </message>
    <message>
        <source>the system&apos;s CAs</source>
        <translation>the system&apos;s CAs</translation>
    </message>
    <message>
        <source>the host of the URL</source>
        <translation>the host of the URL</translation>
    </message>
    <message>
        <source>Sent as SNI and checked in the certificate instead of the host connected to</source>
        <translation>Sent as SNI and checked in the certificate instead of the host connected to</translation>
    </message>
    <message>
        <source>full: the chain and the host name or IP (recommended)</source>
        <translation>full: the chain and the host name or IP (recommended)</translation>
    </message>
    <message>
        <source>ca: the chain only (nodes announced by IP, certificates naming hosts)</source>
        <translation>ca: the chain only (nodes announced by IP, certificates naming hosts)</translation>
    </message>
    <message>
        <source>none: nothing is checked (insecure)</source>
        <translation>none: nothing is checked (insecure)</translation>
    </message>
    <message>
        <source>Nothing is checked: anyone on the path can read and change the traffic, passwords included. The console says so wherever this connection is used.</source>
        <translation>Nothing is checked: anyone on the path can read and change the traffic, passwords included. The console says so wherever this connection is used.</translation>
    </message>
    <message>
        <source>CA file</source>
        <translation>CA file</translation>
    </message>
    <message>
        <source>Client certificate</source>
        <translation>Client certificate</translation>
    </message>
    <message>
        <source>Client key</source>
        <translation>Client key</translation>
    </message>
    <message>
        <source>Server name (SNI)</source>
        <translation>Server name (SNI)</translation>
    </message>
    <message>
        <source>Verify</source>
        <translation>Verify</translation>
    </message>
    <message>
        <source>Redis</source>
        <translation>Redis</translation>
    </message>
    <message>
        <source>A CA file turns TLS on. Qt 6.4&apos;s MySQL driver checks that the server&apos;s certificate chain leads to this CA, not that it names the host: use a CA that signs database servers only.</source>
        <translation>A CA file turns TLS on. Qt 6.4&apos;s MySQL driver checks that the server&apos;s certificate chain leads to this CA, not that it names the host: use a CA that signs database servers only.</translation>
    </message>
    <message>
        <source>MySQL / MariaDB</source>
        <translation>MySQL / MariaDB</translation>
    </message>
</context>
<context>
    <name>lantern::ui::QueueJobBar</name>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Cancelling after the current batch…</source>
        <translation>Cancelling after the current batch…</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 of %2</translation>
    </message>
</context>
<context>
    <name>lantern::ui::QueueThroughputChart</name>
    <message>
        <source>Waiting (tasks)</source>
        <translation>Waiting (tasks)</translation>
    </message>
    <message>
        <source>Drained per second</source>
        <translation>Drained per second</translation>
    </message>
    <message>
        <source>tasks</source>
        <translation>tasks</translation>
    </message>
    <message>
        <source>per s</source>
        <translation>per s</translation>
    </message>
</context>
<context>
    <name>lantern::ui::QueuesView</name>
    <message>
        <source>Waiting for Redis…</source>
        <translation>Waiting for Redis…</translation>
    </message>
    <message>
        <source>Queues</source>
        <translation>Queues</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>Workers</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>Throughput</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) waiting</source>
        <translation>
            <numerusform>%n task waiting</numerusform>
            <numerusform>%n tasks waiting</numerusform>
        </translation>
    </message>
    <message>
        <source>oldest %1</source>
        <translation>oldest %1</translation>
    </message>
    <message numerus="yes">
        <source>%n worker(s) alive</source>
        <translation>
            <numerusform>%n worker alive</numerusform>
            <numerusform>%n workers alive</numerusform>
        </translation>
    </message>
    <message>
        <source>no dead letters</source>
        <translation>no dead letters</translation>
    </message>
    <message numerus="yes">
        <source>%Ln task(s)</source>
        <translation>
            <numerusform>%Ln task</numerusform>
            <numerusform>%Ln tasks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;span style=&quot;color:#a50e0e&quot;&gt;%n dead, holding %1&lt;/span&gt; — &lt;a href=&quot;view:recovery&quot;&gt;see Recovery&lt;/a&gt;</source>
        <translation>
            <numerusform>&lt;span style=&quot;color:#a50e0e&quot;&gt;%n dead, holding %1&lt;/span&gt; — &lt;a href=&quot;view:recovery&quot;&gt;see Recovery&lt;/a&gt;</numerusform>
            <numerusform>&lt;span style=&quot;color:#a50e0e&quot;&gt;%n dead, holding %1&lt;/span&gt; — &lt;a href=&quot;view:recovery&quot;&gt;see Recovery&lt;/a&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;a href=&quot;dead-letters&quot; style=&quot;color:#a50e0e&quot;&gt;%n dead letter(s)&lt;/a&gt;</source>
        <translation>
            <numerusform>&lt;a href=&quot;dead-letters&quot; style=&quot;color:#a50e0e&quot;&gt;%n dead letter&lt;/a&gt;</numerusform>
            <numerusform>&lt;a href=&quot;dead-letters&quot; style=&quot;color:#a50e0e&quot;&gt;%n dead letters&lt;/a&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>payouts %1/s, %n call(s) out, provider errors: %2</source>
        <translation>
            <numerusform>payouts %1/s, %n call out, provider errors: %2</numerusform>
            <numerusform>payouts %1/s, %n calls out, provider errors: %2</numerusform>
        </translation>
    </message>
    <message>
        <source>“%1” has no dead letters.</source>
        <translation>“%1” has no dead letters.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::RecoveryView</name>
    <message>
        <source>Compensate worker…</source>
        <translation>Compensate worker…</translation>
    </message>
    <message>
        <source>Compensate all…</source>
        <translation>Compensate all…</translation>
    </message>
    <message>
        <source>Reconcile…</source>
        <translation>Reconcile…</translation>
    </message>
    <message>
        <source>Waiting for Redis…</source>
        <translation>Waiting for Redis…</translation>
    </message>
    <message>
        <source>Complete what SQL says is done and put the rest back on its queue, for the selected worker</source>
        <translation>Complete what SQL says is done and put the rest back on its queue, for the selected worker</translation>
    </message>
    <message>
        <source>The same for every dead worker listed</source>
        <translation>The same for every dead worker listed</translation>
    </message>
    <message>
        <source>Dead workers</source>
        <translation>Dead workers</translation>
    </message>
    <message>
        <source>Ledger check of the campaigns involved</source>
        <translation>Ledger check of the campaigns involved</translation>
    </message>
    <message>
        <source>Compares the day&apos;s check-ins in Redis with the log in SQL and back-fills the rows that were lost.</source>
        <translation>Compares the day&apos;s check-ins in Redis with the log in SQL and back-fills the rows that were lost.</translation>
    </message>
    <message>
        <source>Day:</source>
        <translation>Day:</translation>
    </message>
    <message>
        <source>Check-in reconciliation</source>
        <translation>Check-in reconciliation</translation>
    </message>
    <message>
        <source>No dead worker: nothing waits for compensation.</source>
        <translation>No dead worker: nothing waits for compensation.</translation>
    </message>
    <message numerus="yes">
        <source>%n dead worker(s)</source>
        <translation>
            <numerusform>%n dead worker</numerusform>
            <numerusform>%n dead workers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) held in their backup lists</source>
        <translation>
            <numerusform>%n task held in their backup lists</numerusform>
            <numerusform>%n tasks held in their backup lists</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n with violations</source>
        <translation>
            <numerusform>%n with violations</numerusform>
            <numerusform>%n with violations</numerusform>
        </translation>
    </message>
    <message>
        <source>Compensate worker %1?</source>
        <translation>Compensate worker %1?</translation>
    </message>
    <message numerus="yes">
        <source>Compensate all %n dead worker(s)?</source>
        <translation>
            <numerusform>Compensate the %n dead worker?</numerusform>
            <numerusform>Compensate all %n dead workers?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Each of the %n task(s) they hold is completed when SQL records it as done, put back at the front of its queue otherwise (a payout keeps its idempotency key, so nothing is paid twice), or set aside when unreadable.</source>
        <translation>
            <numerusform>The %n task it holds is completed when SQL records it as done, put back at the front of its queue otherwise (a payout keeps its idempotency key, so nothing is paid twice), or set aside when unreadable.</numerusform>
            <numerusform>Each of the %n tasks they hold is completed when SQL records it as done, put back at the front of its queue otherwise (a payout keeps its idempotency key, so nothing is paid twice), or set aside when unreadable.</numerusform>
        </translation>
    </message>
    <message>
        <source>Compensate</source>
        <translation>Compensate</translation>
    </message>
    <message numerus="yes">
        <source>Compensating %n worker(s)…</source>
        <translation>
            <numerusform>Compensating %n worker…</numerusform>
            <numerusform>Compensating %n workers…</numerusform>
        </translation>
    </message>
    <message>
        <source>Reconcile check-ins</source>
        <translation>Reconcile check-ins</translation>
    </message>
    <message>
        <source>Compare the check-ins of %1 in Redis with the log in SQL and back-fill the rows that are missing?</source>
        <translation>Compare the check-ins of %1 in Redis with the log in SQL and back-fill the rows that are missing?</translation>
    </message>
    <message>
        <source>Reconcile</source>
        <translation>Reconcile</translation>
    </message>
    <message>
        <source>Reconciling %1…</source>
        <translation>Reconciling %1…</translation>
    </message>
    <message>
        <source>Nothing was missing.</source>
        <translation>Nothing was missing.</translation>
    </message>
    <message>
        <source>%1 missing, %2 back-filled.</source>
        <translation>%1 missing, %2 back-filled.</translation>
    </message>
    <message>
        <source>Recovery</source>
        <translation>Recovery</translation>
    </message>
    <message numerus="yes">
        <source>ledger: %1 of %n campaign(s) balanced</source>
        <translation>
            <numerusform>ledger: %1 of %n campaign balanced</numerusform>
            <numerusform>ledger: %1 of %n campaigns balanced</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt;: %Ln check-in(s) in Redis, %2 in SQL before.</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt;: %Ln check-in in Redis, %2 in SQL before.</numerusform>
            <numerusform>&lt;b&gt;%1&lt;/b&gt;: %Ln check-ins in Redis, %2 in SQL before.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lantern::ui::TableActions</name>
    <message>
        <source>&amp;Copy rows</source>
        <translation>&amp;Copy rows</translation>
    </message>
    <message>
        <source>&amp;Export as CSV…</source>
        <translation>&amp;Export as CSV…</translation>
    </message>
    <message>
        <source>Export as CSV</source>
        <translation>Export as CSV</translation>
    </message>
    <message>
        <source>The table could not be written to %1: %2</source>
        <translation>The table could not be written to %1: %2</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV files (*.csv)</translation>
    </message>
    <message numerus="yes">
        <source>%n row(s) written to %1.</source>
        <translation>
            <numerusform>%n row written to %1.</numerusform>
            <numerusform>%n rows written to %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lantern::ui::TimetablePanel</name>
    <message>
        <source>Timetable: scheduled launches and closes</source>
        <translation>Timetable: scheduled launches and closes</translation>
    </message>
    <message numerus="yes">
        <source>Timetable: %n pending transition(s), %1 worker(s) alive</source>
        <translation>
            <numerusform>Timetable: %n pending transition, %1 worker(s) alive</numerusform>
            <numerusform>Timetable: %n pending transitions, %1 worker(s) alive</numerusform>
        </translation>
    </message>
    <message>
        <source>A transition is due at %1 and no worker is alive to make it: start a worker (lanternd work).</source>
        <translation>A transition is due at %1 and no worker is alive to make it: start a worker (lanternd work).</translation>
    </message>
    <message>
        <source>The timetable could not be read: %1</source>
        <translation>The timetable could not be read: %1</translation>
    </message>
</context>
<context>
    <name>lantern::ui::UserHistoryPanel</name>
    <message>
        <source>Streak chart</source>
        <translation>Streak chart</translation>
    </message>
    <message>
        <source>Check-ins</source>
        <translation>Check-ins</translation>
    </message>
    <message>
        <source>Points ledger</source>
        <translation>Points ledger</translation>
    </message>
    <message>
        <source>Checked in</source>
        <translation>Checked in</translation>
    </message>
    <message>
        <source>Make-up</source>
        <translation>Make-up</translation>
    </message>
    <message>
        <source>Longest run</source>
        <translation>Longest run</translation>
    </message>
    <message>
        <source>days</source>
        <translation>days</translation>
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
        <source>Users</source>
        <translation>Users</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Stop waiting for this answer (Esc)</source>
        <translation>Stop waiting for this answer (Esc)</translation>
    </message>
    <message>
        <source>Cancelled. The last answer shown stays on screen.</source>
        <translation>Cancelled. The last answer shown stays on screen.</translation>
    </message>
    <message>
        <source>No check-ins are recorded for user %1 in the last six months: a new user, or a uid nobody uses.</source>
        <translation>No check-ins are recorded for user %1 in the last six months: a new user, or a uid nobody uses.</translation>
    </message>
    <message>
        <source>User %1 had signed %2 meanwhile; nothing changed.</source>
        <translation>User %1 had signed %2 meanwhile; nothing changed.</translation>
    </message>
    <message>
        <source>Make-up granted to user %1 for %2.</source>
        <translation>Make-up granted to user %1 for %2.</translation>
    </message>
</context>
<context>
    <name>lantern::ui::WriteAction</name>
    <message>
        <source>Read-only connection: this would change data, and every change is refused. Connect with a profile that may write to use it.</source>
        <translation>Read-only connection: this would change data, and every change is refused. Connect with a profile that may write to use it.</translation>
    </message>
</context>
</TS>
