<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AccessText</name>
    <message>
        <source>unknown --role &apos;%1&apos;: expected viewer, support, manager, oncall, worker, api or admin</source>
        <translation>未知的 --role &apos;%1&apos;：应为 viewer、support、manager、oncall、worker、api 或 admin</translation>
    </message>
    <message>
        <source>cannot read --password-file %1: %2</source>
        <translation>无法读取 --password-file %1：%2</translation>
    </message>
    <message>
        <source>warning: %1 of %2 Redis nodes have no aclfile: the change is lost when they restart (docs/security.md)</source>
        <translation>警告：%2 个 Redis 节点中有 %1 个没有 aclfile：重启后此更改会丢失（见 docs/security.md）</translation>
    </message>
    <message>
        <source>there is no operator account %1</source>
        <translation>没有操作员账号 %1</translation>
    </message>
</context>
<context>
    <name>CampaignDraftCheck</name>
    <message>
        <source>Give the campaign a name.</source>
        <translation>请填写活动名称。</translation>
    </message>
    <message numerus="yes">
        <source>The name is too long: at most %n characters.</source>
        <translation>
            <numerusform>名称过长：最多 %n 个字符。</numerusform>
        </translation>
    </message>
    <message>
        <source>The name must not contain control characters.</source>
        <translation>名称不能包含控制字符。</translation>
    </message>
    <message>
        <source>Enter the total amount in yuan.</source>
        <translation>请填写总金额（元）。</translation>
    </message>
    <message>
        <source>Not an amount: use yuan with at most two decimals, e.g. 888.88 (and nothing beyond ¥92,233,720,368,547,758.07).</source>
        <translation>金额格式不正确：请以元为单位，最多两位小数，例如 888.88（且不能超过 ¥92,233,720,368,547,758.07）。</translation>
    </message>
    <message>
        <source>The total must be at least ¥0.01.</source>
        <translation>总金额至少为 ¥0.01。</translation>
    </message>
    <message>
        <source>Enter how many envelopes to split the total into.</source>
        <translation>请填写要把总金额拆成多少个红包。</translation>
    </message>
    <message>
        <source>Not a whole number.</source>
        <translation>不是整数。</translation>
    </message>
    <message>
        <source>There must be at least one envelope.</source>
        <translation>至少要有 1 个红包。</translation>
    </message>
    <message>
        <source>At most %1 envelopes per campaign.</source>
        <translation>每个活动最多 %1 个红包。</translation>
    </message>
    <message>
        <source>Not an amount: use yuan with at most two decimals, e.g. 0.01.</source>
        <translation>金额格式不正确：请以元为单位，最多两位小数，例如 0.01。</translation>
    </message>
    <message>
        <source>Every envelope must hold at least ¥0.01.</source>
        <translation>每个红包至少 ¥0.01。</translation>
    </message>
    <message>
        <source>%1 envelopes of at least %2 is more money than can be counted: lower the count or the minimum.</source>
        <translation>%1 个至少 %2 的红包，金额超出了可计算的上限：请减少红包个数或降低最小金额。</translation>
    </message>
    <message>
        <source>Too little for %1 envelopes of at least %2: the total must be at least %3.</source>
        <translation>总金额不够分成 %1 个至少 %2 的红包：总金额至少应为 %3。</translation>
    </message>
    <message>
        <source>Enter a seed (a whole number), or press Random.</source>
        <translation>请填写随机种子（整数），或点击“随机”。</translation>
    </message>
    <message>
        <source>The seed is a whole number from 0 to %1.</source>
        <translation>随机种子应为 0 到 %1 之间的整数。</translation>
    </message>
    <message>
        <source>From 1 to 1000 grab attempts per user.</source>
        <translation>每个用户可尝试抢 1 到 1000 次。</translation>
    </message>
</context>
<context>
    <name>CampaignRepair</name>
    <message>
        <source>no campaign with id %1</source>
        <translation>不存在 ID 为 %1 的活动</translation>
    </message>
    <message>
        <source>campaign %1 is a draft: it has no grabs to repair</source>
        <translation>活动 %1 还是草稿：没有可修复的抢红包记录</translation>
    </message>
    <message>
        <source>campaign %1 is being repaired by another process; try again when it is done</source>
        <translation>活动 %1 正由另一个进程修复；请在修复完成后重试</translation>
    </message>
    <message>
        <source>workers keep registering; the repair of campaign %1 could not read their lists</source>
        <translation>不断有工作进程注册；活动 %1 的修复无法读取它们的队列</translation>
    </message>
    <message>
        <source>campaign %1 has %2 envelopes in SQL instead of %3: its pool cannot be rebuilt</source>
        <translation>活动 %1 在 SQL 中有 %2 个红包而不是 %3 个：无法重建红包池</translation>
    </message>
    <message>
        <source>the repair of campaign %1 took longer than %2 s and was abandoned; run it again</source>
        <translation>活动 %1 的修复超过 %2 秒，已放弃；请重新运行</translation>
    </message>
</context>
<context>
    <name>CampaignService</name>
    <message>
        <source>a campaign needs a name of 1 to 128 characters</source>
        <translation>活动名称须为 1 到 128 个字符</translation>
    </message>
    <message>
        <source>invalid --max-attempts %1: expected 1 to 1000</source>
        <translation>--max-attempts %1 无效：应为 1 到 1000</translation>
    </message>
    <message>
        <source>no campaign with id %1</source>
        <translation>不存在 ID 为 %1 的活动</translation>
    </message>
    <message>
        <source>campaign %1 is %2: it cannot become %3</source>
        <translation>活动 %1 当前状态为 %2：不能变为 %3</translation>
    </message>
    <message>
        <source>campaign %1 is %2: only a draft can be launched</source>
        <translation>活动 %1 当前状态为 %2：只有草稿状态的活动可以上线</translation>
    </message>
    <message>
        <source>campaign %1 is a draft: launch it first</source>
        <translation>活动 %1 还是草稿：请先上线</translation>
    </message>
    <message>
        <source>a campaign name must not contain control characters or text that is not valid UTF-8</source>
        <translation>活动名称不能包含控制字符或无效的 UTF-8 文本</translation>
    </message>
    <message>
        <source>campaign %1 is being repaired from the ledger; try again in a moment</source>
        <translation>活动 %1 正在依据账本修复；请稍后重试</translation>
    </message>
    <message>
        <source>invalid --pools %1: expected 1 to %2</source>
        <translation>无效的 --pools %1：应为 1 到 %2</translation>
    </message>
    <message>
        <source>invalid --pools %1: a campaign of %2 envelopes has at most %2 pools</source>
        <translation>无效的 --pools %1：%2 个红包的活动最多有 %2 个子池</translation>
    </message>
    <message>
        <source>campaign %1&apos;s pool names in SQL are not a list of its %2 pools</source>
        <translation>活动 %1 在 SQL 中的子池名称不是其 %2 个子池的列表</translation>
    </message>
    <message>
        <source>campaign %1 is above the four-eyes bound: a manager other than %2 must approve it first (campaign approve --id %1)</source>
        <translation>活动 %1 超过双人复核金额：须先由 %2 以外的另一位经理批准（campaign approve --id %1）</translation>
    </message>
</context>
<context>
    <name>CampaignVerifier</name>
    <message>
        <source>no campaign with id %1</source>
        <translation>不存在 ID 为 %1 的活动</translation>
    </message>
    <message>
        <source>%1 envelopes in SQL, the campaign has %2</source>
        <translation>SQL 中有 %1 个红包，活动应有 %2 个</translation>
    </message>
    <message>
        <source>envelopes sum to %1 cents, the total is %2</source>
        <translation>红包金额合计 %1 分，总金额应为 %2 分</translation>
    </message>
    <message>
        <source>%1 envelopes below the minimum of %2 cents</source>
        <translation>%1 个红包低于最小金额 %2 分</translation>
    </message>
    <message>
        <source>%1 grabbed (%2 in SQL) of %3 envelopes</source>
        <translation>%3 个红包被抢了 %1 个（SQL 中 %2 个）</translation>
    </message>
    <message>
        <source>%1 users hold an envelope but %2 were grabbed</source>
        <translation>%1 个用户持有红包，但被抢的红包有 %2 个</translation>
    </message>
    <message>
        <source>a user holds more than one envelope in SQL</source>
        <translation>SQL 中有用户持有不止一个红包</translation>
    </message>
    <message>
        <source>%1 grabs do not match their envelope</source>
        <translation>%1 条抢红包记录与对应红包不符</translation>
    </message>
    <message>
        <source>%1 payout tasks are in the dead-letter list</source>
        <translation>死信队列中有 %1 个发放任务</translation>
    </message>
    <message>
        <source>%1 payouts (%2 cents) for %3 grabs (%4 cents)</source>
        <translation>%3 次抢红包（%4 分）对应 %1 笔发放（%2 分）</translation>
    </message>
    <message>
        <source>%1 payouts recorded as paid are not in the provider&apos;s ledger with their amount</source>
        <translation>%1 笔已记为发放成功的款项不在支付方账本中，或金额不符</translation>
    </message>
    <message>
        <source>grabbed %1 + refunded %2 cents differ from the total %3</source>
        <translation>已抢 %1 分 + 已退回 %2 分与总金额 %3 分不符</translation>
    </message>
    <message>
        <source>%1 grabs (%2 cents) in Redis, %3 rows (%4 cents) in SQL</source>
        <translation>Redis 中有 %1 次抢红包（%2 分），SQL 中有 %3 行（%4 分）</translation>
    </message>
    <message>
        <source>%1 envelopes left in the pools and %2 grabbed, of %3</source>
        <translation>子池中剩余 %1 个红包，已抢 %2 个，共 %3 个</translation>
    </message>
    <message>
        <source>%1 grabs of a campaign the ledger has no row of (made up in Redis): refused, not paid</source>
        <translation>%1 次抢红包属于账本中没有记录的活动（在 Redis 中伪造）：已拒绝，未支付</translation>
    </message>
    <message>
        <source>%1 grabs of envelopes the ledger holds no launch of (set live or pushed into a pool in Redis by hand): refused, not paid</source>
        <translation>%1 次抢到的红包在账本中没有上线记录（有人在 Redis 中手工设为上线或塞入红包池）：已拒绝，未支付</translation>
    </message>
    <message>
        <source>Redis holds the campaign as %1 while the ledger holds a draft: it was not launched through SQL</source>
        <translation>Redis 中该活动为 %1，而账本中仍是草稿：它并未经 SQL 上线</translation>
    </message>
    <message>
        <source>%1 grab rows (%2 cents) in SQL, the workers wrote %3 (%4 cents): grab rows were changed outside Lantern</source>
        <translation>SQL 中有 %1 条抢红包记录（%2 分），工作进程写入的是 %3 条（%4 分）：抢红包记录在 Lantern 之外被改动过</translation>
    </message>
    <message>
        <source>%1 paid payouts (%2 cents) in SQL, the workers recorded %3 (%4 cents): payout rows were changed outside Lantern</source>
        <translation>SQL 中有 %1 笔已支付的发放（%2 分），工作进程记录的是 %3 笔（%4 分）：发放记录在 Lantern 之外被改动过</translation>
    </message>
    <message>
        <source>the launch recorded %1 envelopes of %2 cents (the smallest %3) where the rows hold %4 of %5 cents (the smallest %6): the recorded split was changed outside Lantern</source>
        <translation>发放时记录的拆分为 %1 个红包共 %2 分（最小 %3 分），而数据行为 %4 个共 %5 分（最小 %6 分）：记录的拆分在 Lantern 之外被改动</translation>
    </message>
</context>
<context>
    <name>GrabService</name>
    <message>
        <source>campaign %1 is being repaired from the ledger; try again in a moment</source>
        <translation>活动 %1 正在依据账本修复；请稍后重试</translation>
    </message>
</context>
<context>
    <name>QCommandLineParser</name>
    <message>
        <source>Displays help on commandline options.</source>
        <translation>显示命令行选项的帮助。</translation>
    </message>
    <message>
        <source>Displays help including Qt specific options.</source>
        <translation>显示帮助，包括 Qt 专有选项。</translation>
    </message>
    <message>
        <source>Displays version information.</source>
        <translation>显示版本信息。</translation>
    </message>
</context>
<context>
    <name>lantern::ApiGate</name>
    <message>
        <source>no such endpoint: %1</source>
        <translation>接口不存在：%1</translation>
    </message>
    <message>
        <source>%1 takes %2 only</source>
        <translation>%1 只接受 %2 请求</translation>
    </message>
    <message>
        <source>request body too large: at most %1 bytes</source>
        <translation>请求体过大：最多 %1 字节</translation>
    </message>
    <message>
        <source>invalid campaign id: expected a positive whole number</source>
        <translation>活动 ID 无效：应为正整数</translation>
    </message>
    <message numerus="yes">
        <source>too many requests; retry after %n second(s)</source>
        <translation>
            <numerusform>请求过于频繁；请在 %n 秒后重试</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is switched off for now</source>
        <translation>%1 功能暂时已关闭</translation>
    </message>
    <message>
        <source>missing bearer token: send &apos;Authorization: Bearer &lt;token&gt;&apos;</source>
        <translation>缺少 Bearer 令牌：请发送“Authorization: Bearer &lt;token&gt;”</translation>
    </message>
    <message>
        <source>unsupported authorization scheme: expected &apos;Bearer &lt;token&gt;&apos;</source>
        <translation>不支持的认证方式：应为“Bearer &lt;token&gt;”</translation>
    </message>
    <message>
        <source>invalid or expired bearer token</source>
        <translation>Bearer 令牌无效或已过期</translation>
    </message>
    <message>
        <source>query parameter &apos;%1&apos; appears more than once: send each parameter at most once</source>
        <translation>查询参数“%1”出现了多次：每个参数最多只能发送一次</translation>
    </message>
</context>
<context>
    <name>lantern::ApiHandler</name>
    <message>
        <source>internal error; the server log has the details</source>
        <translation>内部错误；详情见服务器日志</translation>
    </message>
    <message>
        <source>no such endpoint: %1</source>
        <translation>接口不存在：%1</translation>
    </message>
    <message>
        <source>malformed JSON body at offset %1: %2</source>
        <translation>请求体 JSON 格式错误（偏移量 %1）：%2</translation>
    </message>
    <message>
        <source>the body must be a JSON object</source>
        <translation>请求体必须是 JSON 对象</translation>
    </message>
    <message>
        <source>unknown field &apos;%1&apos;: this endpoint takes no fields</source>
        <translation>未知字段“%1”：该接口不接受任何字段</translation>
    </message>
    <message>
        <source>GET /v1/calendar takes no body</source>
        <translation>GET /v1/calendar 不接受请求体</translation>
    </message>
    <message>
        <source>unknown query parameter &apos;%1&apos;: only month=YYYY-MM</source>
        <translation>未知查询参数“%1”：只支持 month=YYYY-MM</translation>
    </message>
    <message>
        <source>campaign %1 is not launched or does not exist</source>
        <translation>活动 %1 未上线或不存在</translation>
    </message>
</context>
<context>
    <name>lantern::AuditLogModel</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>操作人</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Back-filled</source>
        <translation>已补录</translation>
    </message>
    <message>
        <source>Completed from SQL</source>
        <translation>按 SQL 记录完成</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>红包数</translation>
    </message>
    <message>
        <source>Day</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>In SQL before</source>
        <translation>对账前 SQL 中</translation>
    </message>
    <message>
        <source>Set aside as unreadable</source>
        <translation>因无法解析移入死信</translation>
    </message>
    <message>
        <source>Users holding an envelope, after</source>
        <translation>持有红包的用户（之后）</translation>
    </message>
    <message>
        <source>Users holding an envelope, before</source>
        <translation>持有红包的用户（之前）</translation>
    </message>
    <message>
        <source>Entry</source>
        <translation>条目</translation>
    </message>
    <message>
        <source>Feature</source>
        <translation>功能</translation>
    </message>
    <message>
        <source>Grabbed amount</source>
        <translation>已抢金额</translation>
    </message>
    <message>
        <source>Envelopes grabbed</source>
        <translation>已抢红包数</translation>
    </message>
    <message>
        <source>Campaign</source>
        <translation>活动</translation>
    </message>
    <message>
        <source>Grabs in flight</source>
        <translation>处理中的抢红包</translation>
    </message>
    <message>
        <source>Grabs in the ledger</source>
        <translation>账本中的抢红包记录</translation>
    </message>
    <message>
        <source>Smallest envelope</source>
        <translation>最小红包</translation>
    </message>
    <message>
        <source>Missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>Envelopes in the pool, after</source>
        <translation>红包池剩余（之后）</translation>
    </message>
    <message>
        <source>Envelopes in the pool, before</source>
        <translation>红包池剩余（之前）</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>In Redis</source>
        <translation>Redis 中</translation>
    </message>
    <message>
        <source>Refunded</source>
        <translation>已退回</translation>
    </message>
    <message>
        <source>Grabs in flight the ledger refuses</source>
        <translation>账本拒绝的处理中抢红包</translation>
    </message>
    <message>
        <source>Re-queued</source>
        <translation>重新入队</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>总金额</translation>
    </message>
    <message>
        <source>Via</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <extracomment>One field of an audit entry&apos;s details in the log&apos;s Details column: its label, then its value.</extracomment>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Put back as</source>
        <translation>放回时改为</translation>
    </message>
    <message>
        <source>Free text: the log cannot be sorted by it</source>
        <translation>自由文本：日志不能按此列排序</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>Campaign created</source>
        <translation>创建活动</translation>
    </message>
    <message>
        <source>Campaign launched</source>
        <translation>上线活动</translation>
    </message>
    <message>
        <source>Campaign paused</source>
        <translation>暂停活动</translation>
    </message>
    <message>
        <source>Campaign resumed</source>
        <translation>恢复活动</translation>
    </message>
    <message>
        <source>Campaign closed</source>
        <translation>结束活动</translation>
    </message>
    <message>
        <source>Campaign rebuilt from SQL</source>
        <translation>依据 SQL 重建活动</translation>
    </message>
    <message>
        <source>Make-up granted</source>
        <translation>补签</translation>
    </message>
    <message>
        <source>Back-dated check-in</source>
        <translation>补录签到</translation>
    </message>
    <message>
        <source>Check-ins reconciled</source>
        <translation>签到对账</translation>
    </message>
    <message>
        <source>Dead letter retried</source>
        <translation>重试死信</translation>
    </message>
    <message>
        <source>Dead letter discarded</source>
        <translation>丢弃死信</translation>
    </message>
    <message>
        <source>Dead letter edited and retried</source>
        <translation>编辑并重试死信</translation>
    </message>
    <message>
        <source>Dead workers&apos; tasks recovered</source>
        <translation>恢复失联工作进程的任务</translation>
    </message>
    <message>
        <source>Details (JSON)</source>
        <extracomment>The CSV column that holds each audit entry&apos;s details as stored.</extracomment>
        <translation>详情（JSON）</translation>
    </message>
    <message>
        <source>Campaign approved</source>
        <translation>审批活动</translation>
    </message>
    <message>
        <source>Campaign timetable set</source>
        <translation>设置活动定时</translation>
    </message>
    <message>
        <source>Scheduled transition missed</source>
        <translation>错过定时操作</translation>
    </message>
    <message>
        <source>API feature switched</source>
        <translation>切换 API 功能</translation>
    </message>
    <message>
        <source>Accounts and roles installed</source>
        <translation>安装账户与角色</translation>
    </message>
    <message>
        <source>Operator added</source>
        <translation>添加操作员</translation>
    </message>
    <message>
        <source>Operator removed</source>
        <translation>删除操作员</translation>
    </message>
    <message>
        <source>Operator&apos;s password changed</source>
        <translation>更换操作员密码</translation>
    </message>
    <message>
        <source>Operator&apos;s role changed</source>
        <translation>更改操作员角色</translation>
    </message>
    <message>
        <source>ACL saved</source>
        <translation>ACL 已保存</translation>
    </message>
    <message>
        <source>Split algorithm</source>
        <translation>拆分算法</translation>
    </message>
    <message>
        <source>Four-eyes bound</source>
        <translation>双人审批门槛</translation>
    </message>
    <message>
        <source>Approved by</source>
        <translation>审批人</translation>
    </message>
    <message>
        <source>Cleared</source>
        <translation>已清除</translation>
    </message>
    <message>
        <source>Close at</source>
        <translation>结束时间</translation>
    </message>
    <message>
        <source>Created by</source>
        <translation>创建人</translation>
    </message>
    <message>
        <source>Due at</source>
        <translation>预定时间</translation>
    </message>
    <message>
        <source>Late limit (s)</source>
        <translation>延迟上限（秒）</translation>
    </message>
    <message>
        <source>Late by (ms)</source>
        <translation>延迟（毫秒）</translation>
    </message>
    <message>
        <source>Launch at</source>
        <translation>上线时间</translation>
    </message>
    <message>
        <source>Lent envelopes settled</source>
        <translation>已结算的借出红包</translation>
    </message>
    <message>
        <source>Attempts per user</source>
        <translation>每人尝试上限</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Needs approval</source>
        <translation>需要审批</translation>
    </message>
    <message>
        <source>Pools</source>
        <translation>红包池</translation>
    </message>
    <message>
        <source>Redis nodes</source>
        <translation>Redis 节点</translation>
    </message>
    <message>
        <source>Replaced</source>
        <translation>已替换</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>Roles</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>Scripts loaded</source>
        <translation>已加载脚本</translation>
    </message>
    <message>
        <source>Random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Transition</source>
        <translation>定时操作</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>工作进程</translation>
    </message>
</context>
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
    <name>lantern::CampaignApproval</name>
    <message>
        <source>approvals need accounts, which SQLite has not (docs/security.md)</source>
        <translation>批准需要账号，而 SQLite 没有账号（见 docs/security.md）</translation>
    </message>
    <message>
        <source>campaign %1 is %2: only a draft is approved</source>
        <translation>活动 %1 为 %2：只能批准草稿</translation>
    </message>
    <message>
        <source>campaign %1 was created by %2: another manager must approve it</source>
        <translation>活动 %1 由 %2 创建：须由另一位经理批准</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignConsoleService</name>
    <message>
        <source>Campaign %1 does not exist (any more).</source>
        <translation>活动 %1 不存在（可能已被删除）。</translation>
    </message>
    <message>
        <source>The campaign was not created: its settings were refused.</source>
        <translation>活动未创建：设置未通过校验。</translation>
    </message>
    <message>
        <source>The campaign was not created. %1</source>
        <translation>活动未创建。%1</translation>
    </message>
    <message>
        <source>This campaign can no longer be launched: its status changed meanwhile. The list now shows it as it is.</source>
        <translation>该活动已无法上线：其状态在此期间发生了变化。列表已更新为当前状态。</translation>
    </message>
    <message>
        <source>This campaign cannot be paused: only a live campaign can. The list now shows it as it is.</source>
        <translation>无法暂停该活动：只有进行中的活动才能暂停。列表已更新为当前状态。</translation>
    </message>
    <message>
        <source>This campaign cannot be resumed: only a paused campaign can. The list now shows it as it is.</source>
        <translation>无法恢复该活动：只有已暂停的活动才能恢复。列表已更新为当前状态。</translation>
    </message>
    <message>
        <source>This campaign cannot be closed now. The list now shows it as it is.</source>
        <translation>该活动现在无法结束。列表已更新为当前状态。</translation>
    </message>
    <message>
        <source>The campaign was not created: %1</source>
        <translation>活动未创建：%1</translation>
    </message>
    <message>
        <source>The times were not changed: %1</source>
        <translation>时间未更改：%1</translation>
    </message>
    <message>
        <source>The times were not changed. %1</source>
        <translation>时间未更改。%1</translation>
    </message>
    <message>
        <source>Campaign #%1 is above the four-eyes bound: a manager other than its creator must approve it before it is launched.</source>
        <translation>活动 #%1 超过双人审批额度：须由创建者以外的另一位经理审批后才能上线。</translation>
    </message>
    <message>
        <source>You created campaign #%1: another manager must approve it.</source>
        <translation>活动 #%1 由您创建：须由另一位经理审批。</translation>
    </message>
    <message>
        <source>Only a draft is approved: this campaign was launched or closed meanwhile. The list now shows it as it is.</source>
        <translation>只有草稿可以审批：该活动已在此期间上线或关闭。列表现已显示其当前状态。</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignListModel</name>
    <message>
        <source>Draft</source>
        <translation>草稿</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>进行中</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Closed</source>
        <translation>已结束</translation>
    </message>
    <message>
        <source>Double mean</source>
        <translation>二倍均值法</translation>
    </message>
    <message>
        <source>Smoothed</source>
        <translation>平滑法</translation>
    </message>
    <message>
        <source>Uniform cuts</source>
        <translation>线段切割法</translation>
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
        <translation>名称</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Grabbed / count</source>
        <translation>已抢 / 总数</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>总金额</translation>
    </message>
    <message>
        <source>Grabbed amount</source>
        <translation>已抢金额</translation>
    </message>
    <message>
        <source>Split</source>
        <translation>拆分算法</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>Grabbed</source>
        <translation>已抢</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>红包数</translation>
    </message>
    <message>
        <source>Total (yuan)</source>
        <extracomment>A CSV column of amounts in yuan, as plain numbers.</extracomment>
        <translation>总金额（元）</translation>
    </message>
    <message>
        <source>Grabbed amount (yuan)</source>
        <translation>已抢金额（元）</translation>
    </message>
    <message>
        <source>awaiting approval</source>
        <extracomment>Four eyes: a campaign above the bound no second manager approved yet.</extracomment>
        <translation>待审批</translation>
    </message>
    <message>
        <source>approved by %1</source>
        <translation>已由 %1 审批</translation>
    </message>
    <message>
        <source>Above the four-eyes bound: a manager other than %1 must approve it before it is launched.</source>
        <translation>超过双人审批额度：须由 %1 以外的另一位经理审批后才能上线。</translation>
    </message>
    <message>
        <source>Approved by %1 on %2.</source>
        <translation>已由 %1 于 %2 审批。</translation>
    </message>
    <message>
        <source>Created by</source>
        <translation>创建者</translation>
    </message>
    <message>
        <source>Approval</source>
        <extracomment>Four eyes: who approved a campaign above the bound.</extracomment>
        <translation>审批</translation>
    </message>
    <message>
        <source>Needs approval</source>
        <extracomment>CSV columns of the four-eyes approval: 1 or 0, then the approving account.</extracomment>
        <translation>需要审批</translation>
    </message>
    <message>
        <source>Approved by</source>
        <translation>审批人</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignPools</name>
    <message>
        <source>campaign %1&apos;s pools field in Redis is not a list of its pools: %2</source>
        <translation>活动 %1 在 Redis 中的 pools 字段不是其子池的列表：%2</translation>
    </message>
    <message>
        <source>invalid --pools %1: expected 1 to %2</source>
        <translation>无效的 --pools %1：应为 1 到 %2</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignPreviewer</name>
    <message>
        <source>Not enough memory to preview this many envelopes.</source>
        <translation>内存不足，无法预览这么多红包。</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignSchedule</name>
    <message>
        <source>invalid --%1 &apos;%2&apos;: expected an ISO 8601 time with its offset (2026-12-31T20:00:00+08:00) or a local time (2026-12-31T20:00) in the --tz zone</source>
        <translation>无效的 --%1“%2”：应为带时区偏移的 ISO 8601 时间（2026-12-31T20:00:00+08:00）或 --tz 时区的本地时间（2026-12-31T20:00）</translation>
    </message>
    <message>
        <source>invalid --%1 &apos;%2&apos;: there is no such local time in %3 (a daylight-saving change skips it)</source>
        <translation>无效的 --%1“%2”：%3 时区没有这个本地时间（夏令时切换跳过了它）</translation>
    </message>
    <message>
        <source>--clear drops the campaign&apos;s pending times: give it alone</source>
        <translation>--clear 会删除该活动所有待执行的时间：请单独使用</translation>
    </message>
    <message>
        <source>nothing to schedule: give --launch-at, --close-at, --late-limit or --clear</source>
        <translation>没有可安排的内容：请给出 --launch-at、--close-at、--late-limit 或 --clear</translation>
    </message>
    <message>
        <source>invalid --late-limit %1: expected 1 to %2 seconds</source>
        <translation>无效的 --late-limit %1：应为 1 到 %2 秒</translation>
    </message>
    <message>
        <source>the campaign is closed: it takes no times any more</source>
        <translation>该活动已结束：不能再设置时间</translation>
    </message>
    <message>
        <source>the campaign is %1: only a draft can be scheduled to launch</source>
        <translation>该活动状态为 %1：只有草稿可以安排定时上线</translation>
    </message>
    <message>
        <source>--%1 %2 has passed: the servers&apos; time is %3</source>
        <translation>--%1 %2 已经过去：服务器时间为 %3</translation>
    </message>
    <message>
        <source>the close (%1) must come after the launch (%2)</source>
        <translation>结束时间（%1）必须晚于上线时间（%2）</translation>
    </message>
    <message>
        <source>--late-limit applies to pending times, and the campaign has none</source>
        <translation>--late-limit 只作用于待执行的时间，而该活动没有待执行的时间</translation>
    </message>
    <message>
        <source>no campaign with id %1</source>
        <translation>没有 ID 为 %1 的活动</translation>
    </message>
</context>
<context>
    <name>lantern::CampaignTimetable</name>
    <message>
        <source>%1 s late, over its late limit of %2 s</source>
        <translation>已迟 %1 秒，超过其 %2 秒的延迟上限</translation>
    </message>
    <message>
        <source>the campaign does not exist</source>
        <translation>该活动不存在</translation>
    </message>
    <message>
        <source>the campaign was closed before its launch time</source>
        <translation>该活动在上线时间之前已结束</translation>
    </message>
    <message>
        <source>launched before its time</source>
        <translation>已在预定时间之前上线</translation>
    </message>
    <message>
        <source>closed before its time</source>
        <translation>已在预定时间之前结束</translation>
    </message>
    <message>
        <source>campaign %1: %2 made %3 s after its time (%4)</source>
        <translation>活动 %1：%2 比预定时间晚 %3 秒执行（%4）</translation>
    </message>
    <message>
        <source>campaign %1: %2 due at %3 not made: %4</source>
        <translation>活动 %1：预定于 %3 的 %2 未执行：%4</translation>
    </message>
    <message>
        <source>no second manager approved the campaign before its launch time (four eyes)</source>
        <translation>上线时间之前没有第二位经理批准该活动（双人复核）</translation>
    </message>
</context>
<context>
    <name>lantern::CheckinHistoryModel</name>
    <message>
        <source>Make-up</source>
        <translation>补签</translation>
    </message>
    <message>
        <source>Check-in</source>
        <translation>签到</translation>
    </message>
    <message>
        <source>Day</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>积分</translation>
    </message>
    <message>
        <source>Operator</source>
        <translation>操作人</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
</context>
<context>
    <name>lantern::CheckinLayout</name>
    <message>
        <source>unexpected BITFIELD reply</source>
        <translation>BITFIELD 返回了意外的应答</translation>
    </message>
</context>
<context>
    <name>lantern::CheckinRun</name>
    <message>
        <source>checkin script returned an unexpected reply</source>
        <translation>签到脚本返回了意外的应答</translation>
    </message>
    <message>
        <source>make-up of %1 refused: the monthly quota of %2 make-ups for %3 is used up</source>
        <translation>拒绝补签 %1：%3 的每月补签额度（%2 次）已用完</translation>
    </message>
</context>
<context>
    <name>lantern::CheckinService</name>
    <message>
        <source>cannot check in on %1: it is after today (%2)</source>
        <translation>不能在 %1 签到：该日期晚于今天（%2）</translation>
    </message>
    <message>
        <source>a make-up needs --operator: who grants it</source>
        <translation>补签需要 --operator：说明操作人是谁</translation>
    </message>
    <message>
        <source>a make-up needs --reason: why it is granted</source>
        <translation>补签需要 --reason：说明补签原因</translation>
    </message>
    <message>
        <source>operator (max %1 characters) or reason (max %2) too long</source>
        <translation>操作人（最多 %1 个字符）或原因（最多 %2 个字符）过长</translation>
    </message>
    <message>
        <source>operator and reason must not contain control characters</source>
        <translation>操作人和原因不能包含控制字符</translation>
    </message>
    <message>
        <source>cannot make up %1: it is today; a make-up is for a past day</source>
        <translation>不能补签 %1：这一天就是今天；补签只适用于过去的日期</translation>
    </message>
    <message>
        <source>cannot make up %1: it is in the future</source>
        <translation>不能补签 %1：该日期还没到</translation>
    </message>
    <message>
        <source>make-up of %1 refused: only days of the current month (%2) can be made up</source>
        <translation>拒绝补签 %1：只能补签本月（%2）的日期</translation>
    </message>
    <message>
        <source>make-up of %1 refused: only the last %2 days can be made up</source>
        <translation>拒绝补签 %1：只能补签最近 %2 天内的日期</translation>
    </message>
</context>
<context>
    <name>lantern::Config</name>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected a whole number from %3 to %4</source>
        <translation>%1“%2”无效：应为 %3 到 %4 之间的整数</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected true or false</source>
        <translation>%1“%2”无效：应为 true 或 false</translation>
    </message>
    <message>
        <source>invalid reward table &apos;%1&apos;: expected comma-separated points such as 10,20,30,50</source>
        <translation>奖励表“%1”无效：应为逗号分隔的积分，例如 10,20,30,50</translation>
    </message>
    <message>
        <source>invalid reward table &apos;%1&apos;: expected 1 to 31 entries</source>
        <translation>奖励表“%1”无效：应有 1 到 31 项</translation>
    </message>
    <message>
        <source>invalid profile name &apos;%1&apos;</source>
        <translation>连接配置名称“%1”无效</translation>
    </message>
    <message>
        <source>configuration file %1 does not exist</source>
        <translation>配置文件 %1 不存在</translation>
    </message>
    <message>
        <source>unknown setting &apos;%1&apos; in %2</source>
        <translation>%2 中有未知设置“%1”</translation>
    </message>
    <message>
        <source>%1 in the profile</source>
        <translation>配置文件中的 %1</translation>
    </message>
    <message>
        <source>unknown time zone &apos;%1&apos;: expected an IANA name such as Asia/Shanghai</source>
        <translation>未知时区“%1”：应为 IANA 时区名，例如 Asia/Shanghai</translation>
    </message>
    <message>
        <source>shard count</source>
        <translation>分片数</translation>
    </message>
    <message>
        <source>invalid streak policy &apos;%1&apos;: expected monthly or rolling</source>
        <translation>连续签到策略“%1”无效：应为 monthly 或 rolling</translation>
    </message>
    <message>
        <source>make-up window</source>
        <translation>补签窗口</translation>
    </message>
    <message>
        <source>make-up quota</source>
        <translation>补签额度</translation>
    </message>
    <message>
        <source>make-up points switch</source>
        <translation>补签积分开关</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected an existing day as YYYY-MM-DD</source>
        <translation>%1“%2”无效：应为确实存在的日期，格式为 YYYY-MM-DD</translation>
    </message>
    <message>
        <source>date</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>invalid month &apos;%1&apos;: expected YYYY-MM</source>
        <translation>月份“%1”无效：应为 YYYY-MM</translation>
    </message>
    <message>
        <source>invalid uid &apos;%1&apos;: expected a positive whole number</source>
        <translation>uid“%1”无效：应为正整数</translation>
    </message>
    <message>
        <source>invalid rate limit &apos;%1&apos; in %2: expected R or R/B (requests per second and burst, 0 for unlimited)</source>
        <translation>%2 中的限流值“%1”无效：应为 R 或 R/B（每秒请求数和突发量，0 表示不限）</translation>
    </message>
    <message>
        <source>read-only switch</source>
        <translation>只读开关</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected REPLICAS/MILLISECONDS such as 1/50</source>
        <translation>无效的 %1“%2”：应为 副本数/毫秒，例如 1/50</translation>
    </message>
    <message>
        <source>replicas to wait for</source>
        <translation>要等待的副本数</translation>
    </message>
    <message>
        <source>wait for replicas, in milliseconds</source>
        <translation>等待副本的时间（毫秒）</translation>
    </message>
    <message>
        <source>cannot read credential %1: %2</source>
        <translation>无法读取凭据 %1：%2</translation>
    </message>
    <message>
        <source>credential %1</source>
        <translation>凭据 %1</translation>
    </message>
    <message>
        <source>--sentinel-user and --sentinel-password are for a redis-sentinel:// URL</source>
        <translation>--sentinel-user 和 --sentinel-password 用于 redis-sentinel:// URL</translation>
    </message>
    <message>
        <source>%1 reaches its servers through an SSH tunnel, which only the console&apos;s Connections view opens: run this where the servers are reached directly, or open the profile there</source>
        <translation>%1 经由 SSH 隧道连接服务器，而 SSH 隧道只能由控制台的“连接”视图打开：请在能直接连到服务器的地方运行，或在“连接”视图中打开此配置</translation>
    </message>
</context>
<context>
    <name>lantern::ConnectionErrors</name>
    <message>
        <source>This connection is read-only: the request would have changed data, so it was not sent.</source>
        <translation>当前连接为只读：该请求会修改数据，因此没有发送。</translation>
    </message>
    <message>
        <source>The Redis user of %1 is not allowed to connect this way.</source>
        <translation>%1 的 Redis 用户不允许以这种方式连接。</translation>
    </message>
    <message>
        <source>Redis at %1 refused the user name or password.</source>
        <translation>%1 上的 Redis 拒绝了用户名或密码。</translation>
    </message>
    <message>
        <source>Redis at %1 did not answer in time. Check that it is running and reachable, then try again.</source>
        <translation>%1 上的 Redis 没有及时响应。请确认它正在运行且网络可达，然后重试。</translation>
    </message>
    <message>
        <source>Redis at %1 does not answer. Check that it is running, then try again.</source>
        <translation>%1 上的 Redis 没有响应。请确认它正在运行，然后重试。</translation>
    </message>
    <message>
        <source>The Redis user of %1 is not allowed to do this.</source>
        <translation>%1 的 Redis 用户无权执行此操作。</translation>
    </message>
    <message>
        <source>Redis refused the request.</source>
        <translation>Redis 拒绝了该请求。</translation>
    </message>
    <message>
        <source>The database at %1 refused the user name or password.</source>
        <translation>数据库 %1 拒绝了用户名或密码。</translation>
    </message>
    <message>
        <source>The database server at %1 has no database named “%2”.</source>
        <translation>数据库服务器 %1 上没有名为“%2”的数据库。</translation>
    </message>
    <message>
        <source>The database file %1 cannot be opened. Check that it exists and can be read.</source>
        <translation>无法打开数据库文件 %1。请确认文件存在且可读。</translation>
    </message>
    <message>
        <source>The database at %1 cannot be reached. Check that it is running, then try again.</source>
        <translation>无法连接数据库 %1。请确认它正在运行，然后重试。</translation>
    </message>
    <message>
        <source>This connection is read-only: the database refused a change.</source>
        <translation>当前连接为只读：数据库拒绝了修改。</translation>
    </message>
    <message>
        <source>The database user of %1 is not allowed to do this.</source>
        <translation>%1 的数据库用户无权执行此操作。</translation>
    </message>
    <message>
        <source>The database at %1 has no Lantern tables yet (run “lanternd migrate” first).</source>
        <translation>数据库 %1 中还没有 Lantern 的表（请先运行“lanternd migrate”）。</translation>
    </message>
    <message>
        <source>The database refused the request.</source>
        <translation>数据库拒绝了该请求。</translation>
    </message>
    <message>
        <source>Something went wrong while talking to Redis or the database.</source>
        <translation>与 Redis 或数据库通信时出错。</translation>
    </message>
    <message>
        <source>There is no database file at %1 yet.</source>
        <translation>%1 处还没有数据库文件。</translation>
    </message>
    <message>
        <source>Redis at %1 is loading its dataset after a restart. Try again in a moment.</source>
        <translation>%1 上的 Redis 重启后正在加载数据集。请稍后重试。</translation>
    </message>
    <message>
        <source>Redis at %1 is busy running a script. Try again in a moment.</source>
        <translation>%1 上的 Redis 正忙于运行脚本。请稍后重试。</translation>
    </message>
    <message>
        <source>Redis at %1 is a replica that lost its link to the primary. Try again in a moment.</source>
        <translation>%1 上的 Redis 是与主节点失去连接的副本。请稍后重试。</translation>
    </message>
    <message>
        <source>The Redis cluster of %1 cannot serve this request right now. Try again in a moment.</source>
        <translation>%1 所在的 Redis 集群暂时无法处理此请求。请稍后重试。</translation>
    </message>
    <message>
        <source>is loading</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: it is reading its data after a restart.</extracomment>
        <translation>正在加载数据</translation>
    </message>
    <message>
        <source>is busy</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: a script is running too long.</extracomment>
        <translation>正忙</translation>
    </message>
    <message>
        <source>is unavailable</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: it answers but cannot serve for now.</extracomment>
        <translation>暂不可用</translation>
    </message>
    <message>
        <source>down</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: it does not answer.</extracomment>
        <translation>不可用</translation>
    </message>
    <message>
        <source>cluster failing</source>
        <translation>集群故障</translation>
    </message>
    <message>
        <source>The Redis Cluster reports cluster_state:%1: %2 of 16384 slots are served, so commands on the others are refused (CLUSTERDOWN). A master and its replicas may be down.</source>
        <translation>Redis 集群报告 cluster_state:%1：16384 个槽中只有 %2 个有节点服务，其余槽上的命令会被拒绝（CLUSTERDOWN）。可能有一个主节点及其副本已下线。</translation>
    </message>
    <message>
        <source>TLS to Redis at %1 failed: the server %2</source>
        <translation>到 Redis %1 的 TLS 连接失败：服务器%2</translation>
    </message>
    <message>
        <source>TLS refused</source>
        <extracomment>Redis state in the status bar, after &quot;Redis&quot;: its certificate or TLS set-up was refused.</extracomment>
        <translation>TLS 被拒绝</translation>
    </message>
    <message>
        <source>The account %1 may not do this: the servers refused it (its rights may have changed since the console read them).</source>
        <translation>账号 %1 无权执行此操作：服务器拒绝了它（其权限可能在控制台读取之后已被更改）。</translation>
    </message>
    <message>
        <source>%1 · host key %2</source>
        <translation>%1 · 主机密钥 %2</translation>
    </message>
    <message>
        <source>Not tested: the SSH tunnel is not open.</source>
        <translation>未测试：SSH 隧道未打开。</translation>
    </message>
    <message>
        <source>SSH tunnel down</source>
        <translation>SSH 隧道未连通</translation>
    </message>
    <message>
        <source>“%1” at %2</source>
        <translation>“%1”位于 %2</translation>
    </message>
    <message>
        <source>%1: the servers refused it (its rights may have changed since the console read them).</source>
        <translation>%1：服务器拒绝了该操作（控制台读取权限后，其权限可能已被更改）。</translation>
    </message>
</context>
<context>
    <name>lantern::ConnectionProfile</name>
    <message>
        <source>A profile name is 1 to 64 letters, digits, “_”, “.” or “-”.</source>
        <translation>连接配置名称须为 1 到 64 个字母、数字、“_”、“.”或“-”。</translation>
    </message>
    <message>
        <source>The profile needs an SQL URL, such as mysql://user@host:3306/lantern or sqlite:///path/lantern.db.</source>
        <translation>连接配置需要 SQL URL，例如 mysql://user@host:3306/lantern 或 sqlite:///path/lantern.db。</translation>
    </message>
    <message>
        <source>The key prefix cannot be empty (the default is “lt:”).</source>
        <translation>键前缀不能为空（默认为“lt:”）。</translation>
    </message>
    <message>
        <source>“%1” is not a time zone; use a name such as Asia/Shanghai.</source>
        <translation>“%1”不是有效的时区；请使用 Asia/Shanghai 这样的时区名。</translation>
    </message>
    <message>
        <source>the profile&apos;s verify mode</source>
        <translation>配置的校验模式</translation>
    </message>
    <message>
        <source>Sentinel credentials are for a Redis found through Sentinel (a redis-sentinel:// URL).</source>
        <translation>哨兵凭据只用于经由哨兵查找的 Redis（redis-sentinel:// URL）。</translation>
    </message>
    <message>
        <source>“%1” is not a way to log in to SSH: agent, key or password.</source>
        <translation>“%1”不是 SSH 登录方式：请用 agent、key 或 password。</translation>
    </message>
    <message>
        <source>The SSH port is 1 to 65535 (usually 22).</source>
        <translation>SSH 端口为 1 到 65535（通常为 22）。</translation>
    </message>
    <message>
        <source>The SSH tunnel needs the user to log in as.</source>
        <translation>SSH 隧道需要填写登录用户名。</translation>
    </message>
    <message>
        <source>Choose the SSH private key file (or log in with the agent or a password).</source>
        <translation>请选择 SSH 私钥文件（或改用 SSH agent 或密码登录）。</translation>
    </message>
</context>
<context>
    <name>lantern::ConnectionProfileModel</name>
    <message>
        <source>in use</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>Redis: %1
SQL: %2
Key prefix: %3</source>
        <translation>Redis：%1
SQL：%2
键前缀：%3</translation>
    </message>
</context>
<context>
    <name>lantern::ConsoleAlertMonitor</name>
    <message numerus="yes">
        <source>%1 and %n more</source>
        <translation>
            <numerusform>%1 等另外 %n 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n dead letter(s) set aside: they need a person.</source>
        <translation>
            <numerusform>%n 条死信已被搁置：需要有人处理。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n worker(s) stopped beating: %1. What they hold waits for a recovery.</source>
        <translation>
            <numerusform>%n 个工作进程停止了心跳：%1。它们手中的任务等待恢复。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The ledger does not balance for %n campaign(s): %1.</source>
        <translation>
            <numerusform>%n 个活动的账本不平衡：%1。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The backlog has grown for %n minute(s) and holds %1 entries.</source>
        <translation>
            <numerusform>积压已持续增长 %n 分钟，现有 %1 条。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lantern::ConsoleManual</name>
    <message>
        <source>operations console for daily check-in and red-envelope campaigns</source>
        <translation>每日签到与红包活动的运营控制台</translation>
    </message>
    <message>
        <source>Support staff look users up and grant make-ups, campaign managers run envelope campaigns, and on-call engineers watch queues and workers and run recovery. With --screenshot it renders one view to a PNG file and exits, which needs no display with QT_QPA_PLATFORM=offscreen.</source>
        <translation>客服人员查找用户并为其补签，活动经理运营红包活动，值班工程师监视队列与工作进程并执行恢复。使用 --screenshot 时，它把一个视图渲染为 PNG 文件后退出；配合 QT_QPA_PLATFORM=offscreen 无需显示器。</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>Prints this manual page as roff.</source>
        <translation>以 roff 格式输出本手册页。</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>Every setting option as LANTERN_ and its name in upper case with _ for -; an option on the command line wins. LANTERN_REDIS or LANTERN_DB connects to servers instead of the sandbox.</source>
        <translation>每个设置选项都可写作 LANTERN_ 加上其名称（大写，- 换成 _）；命令行上的选项优先。设置 LANTERN_REDIS 或 LANTERN_DB 时连接服务器，而不是沙盒。</translation>
    </message>
    <message>
        <source>The profile file, or the named profile, to read settings from.</source>
        <translation>从中读取设置的配置文件或命名配置。</translation>
    </message>
    <message>
        <source>The redis-server binary the sandbox starts (default: redis-server on the PATH).</source>
        <translation>沙盒启动的 redis-server 程序（默认：PATH 中的 redis-server）。</translation>
    </message>
    <message>
        <source>Qt&apos;s platform plugin; offscreen renders screenshots without a display.</source>
        <translation>Qt 的平台插件；offscreen 可在没有显示器时渲染截图。</translation>
    </message>
    <message>
        <source>Exit status</source>
        <translation>退出状态</translation>
    </message>
    <message>
        <source>The window was closed, or the screenshot was saved.</source>
        <translation>窗口已关闭，或截图已保存。</translation>
    </message>
    <message>
        <source>The screenshot could not be taken or written, or the command line was not understood.</source>
        <translation>无法截图或写入截图，或无法理解命令行。</translation>
    </message>
    <message>
        <source>Invalid input, such as an unknown view or a malformed date; the message is on stderr.</source>
        <translation>输入无效，例如未知的视图或格式错误的日期；错误信息输出到 stderr。</translation>
    </message>
    <message>
        <source>See also</source>
        <translation>另请参阅</translation>
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
        <translation>位于 %1 的 Redis 对 ROLE 的回答是 %2</translation>
    </message>
    <message>
        <source>%1 (master)</source>
        <translation>%1（主节点）</translation>
    </message>
    <message>
        <source>%1 (replica)</source>
        <translation>%1（副本）</translation>
    </message>
    <message>
        <source>Redis at %1 answers ROLE as %2, not as a master or a replica of one</source>
        <translation>位于 %1 的 Redis 对 ROLE 的回答是 %2，既不是主节点，也不是某个主节点的副本</translation>
    </message>
</context>
<context>
    <name>lantern::DbUrl</name>
    <message>
        <source>invalid database URL &apos;%1&apos;: %2</source>
        <translation>数据库 URL“%1”无效：%2</translation>
    </message>
    <message>
        <source>expected mysql://user:password@host:port/dbname or sqlite:///absolute/path.db</source>
        <translation>应为 mysql://user:password@host:port/dbname 或 sqlite:///absolute/path.db</translation>
    </message>
    <message>
        <source>SQLite needs an absolute file path, as sqlite:///var/lib/lantern/lantern.db</source>
        <translation>SQLite 需要绝对文件路径，例如 sqlite:///var/lib/lantern/lantern.db</translation>
    </message>
    <message>
        <source>the scheme must be mysql or sqlite</source>
        <translation>协议必须是 mysql 或 sqlite</translation>
    </message>
    <message>
        <source>missing host</source>
        <translation>缺少主机名</translation>
    </message>
    <message>
        <source>the database name must be 1 to 64 of A-Z a-z 0-9 _</source>
        <translation>数据库名必须是 1 到 64 个 A-Z a-z 0-9 _ 字符</translation>
    </message>
    <message>
        <source>missing user</source>
        <translation>缺少用户名</translation>
    </message>
    <message>
        <source>unknown parameter &apos;%1&apos; (only unix_socket is supported)</source>
        <translation>未知参数“%1”（只支持 unix_socket）</translation>
    </message>
    <message>
        <source>--db-ca, --db-cert and --db-key are for MySQL and MariaDB, not SQLite</source>
        <translation>--db-ca、--db-cert 和 --db-key 用于 MySQL 和 MariaDB，不用于 SQLite</translation>
    </message>
    <message>
        <source>--db-key needs its certificate: give --db-cert too</source>
        <translation>--db-key 需要对应的证书：请同时提供 --db-cert</translation>
    </message>
    <message>
        <source>the TLS file name %1 holds &apos;;&apos; or &apos;=&apos;, which the MySQL driver&apos;s options cannot carry</source>
        <translation>TLS 文件名 %1 含有“;”或“=”，MySQL 驱动的选项无法传递</translation>
    </message>
    <message>
        <source>cannot read the database TLS file %1</source>
        <translation>无法读取数据库 TLS 文件 %1</translation>
    </message>
</context>
<context>
    <name>lantern::DeadLetterModel</name>
    <message>
        <source>Payout</source>
        <translation>发放</translation>
    </message>
    <message>
        <source>Campaign %1, envelope %2: %3 to user %4</source>
        <translation>活动 %1，红包 %2：向用户 %4 发放 %3 元</translation>
    </message>
    <message>
        <source>Make-up</source>
        <translation>补签</translation>
    </message>
    <message>
        <source>Check-in</source>
        <translation>签到</translation>
    </message>
    <message numerus="yes">
        <source>User %1 on %2, %n point(s)</source>
        <translation>
            <numerusform>用户 %1，%2，%n 积分</numerusform>
        </translation>
    </message>
    <message>
        <source>Unreadable</source>
        <translation>无法解析</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Entry</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>Queued at</source>
        <translation>入队时间</translation>
    </message>
    <message>
        <source>no reason given</source>
        <translation>未说明原因</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>Why it was set aside</source>
        <translation>搁置原因</translation>
    </message>
    <message>
        <source>Tries</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <source>Set aside at</source>
        <translation>搁置时间</translation>
    </message>
    <message>
        <source>Entry (as stored)</source>
        <extracomment>The CSV column holding each dead letter byte for byte.</extracomment>
        <translation>条目（原样）</translation>
    </message>
</context>
<context>
    <name>lantern::DeadLetters</name>
    <message>
        <source>unexpected reply of deadletter_move.lua</source>
        <translation>deadletter_move.lua 返回了意外的应答</translation>
    </message>
    <message>
        <source>the edited entry is not a task a worker of %1 can read</source>
        <translation>编辑后的条目不是 %1 的工作进程能读取的任务</translation>
    </message>
    <message>
        <source>no dead-letter list called &apos;%1&apos;: expected checkin:&lt;shard&gt; or payout:&lt;campaign id&gt; (payout:&lt;campaign id&gt;.&lt;n&gt; for a sub-pool)</source>
        <translation>不存在名为“%1”的死信队列：应为 checkin:&lt;shard&gt; 或 payout:&lt;campaign id&gt;（子池为 payout:&lt;campaign id&gt;.&lt;n&gt;）</translation>
    </message>
    <message>
        <source>unexpected reply of deadletter_take.lua</source>
        <translation>deadletter_take.lua 返回了意外的应答</translation>
    </message>
</context>
<context>
    <name>lantern::EnvelopeSplitter</name>
    <message>
        <source>the envelope count must be from 1 to %1, not %2</source>
        <translation>红包个数应为 1 到 %1，而不是 %2</translation>
    </message>
    <message>
        <source>the minimum envelope must be at least 1 cent, not %1</source>
        <translation>单个红包最小金额至少为 1 分，而不是 %1</translation>
    </message>
    <message>
        <source>the total must be at least 1 cent, not %1</source>
        <translation>总金额至少为 1 分，而不是 %1</translation>
    </message>
    <message>
        <source>%1 envelopes of at least %2 cents exceed the largest amount Lantern can hold</source>
        <translation>%1 个至少 %2 分的红包超出了 Lantern 能表示的最大金额</translation>
    </message>
    <message>
        <source>the total of %1 cents is less than %2 envelopes of at least %3 cents</source>
        <translation>总金额 %1 分不足以分成 %2 个至少 %3 分的红包</translation>
    </message>
    <message>
        <source>unknown split algorithm %1</source>
        <translation>未知的拆分算法 %1</translation>
    </message>
</context>
<context>
    <name>lantern::FeatureSwitches</name>
    <message>
        <source>unknown feature &apos;%1&apos;: expected %2</source>
        <translation>未知功能“%1”：应为 %2</translation>
    </message>
</context>
<context>
    <name>lantern::HttpPayoutGateway</name>
    <message>
        <source>invalid payout provider URL &apos;%1&apos;: expected http://host[:port]/path or https://...</source>
        <translation>支付方 URL“%1”无效：应为 http://host[:port]/path 或 https://...</translation>
    </message>
    <message>
        <source>invalid payout attempts %1: expected 1 to 100</source>
        <translation>发放尝试次数 %1 无效：应为 1 到 100</translation>
    </message>
    <message>
        <source>invalid payout timeout or backoff: the timeout must be positive and the backoff not negative</source>
        <translation>发放超时或退避时间无效：超时必须为正数，退避时间不能为负数</translation>
    </message>
    <message>
        <source>the payout provider did not answer within %1 ms</source>
        <translation>支付方在 %1 毫秒内没有应答</translation>
    </message>
    <message>
        <source>could not reach the payout provider: %1</source>
        <translation>无法连接支付方：%1</translation>
    </message>
    <message>
        <source>the payout provider answered HTTP %1 without a payment reference: %2</source>
        <translation>支付方返回 HTTP %1，但没有付款凭证：%2</translation>
    </message>
    <message>
        <source>the payout provider is unavailable (HTTP %1): %2</source>
        <translation>支付方暂不可用（HTTP %1）：%2</translation>
    </message>
    <message>
        <source>the payout provider refused the payout (HTTP %1): %2</source>
        <translation>支付方拒绝了这笔发放（HTTP %1）：%2</translation>
    </message>
    <message numerus="yes">
        <source>%1 (gave up after %n attempt(s))</source>
        <translation>
            <numerusform>%1（尝试 %n 次后放弃）</numerusform>
        </translation>
    </message>
    <message>
        <source>invalid payout connections %1: expected 1 to %2</source>
        <translation>支付连接数 %1 无效：应为 1 到 %2</translation>
    </message>
</context>
<context>
    <name>lantern::HttpRequestParser</name>
    <message>
        <source>request headers too large: at most %1 bytes</source>
        <translation>请求头过大：最多 %1 字节</translation>
    </message>
    <message>
        <source>malformed request: %1</source>
        <translation>请求格式错误：%1</translation>
    </message>
    <message>
        <source>malformed request: whitespace in a header name</source>
        <translation>请求格式错误：请求头名称中含有空白字符</translation>
    </message>
    <message>
        <source>malformed request: more than one Authorization header</source>
        <translation>请求格式错误：Authorization 请求头出现多次</translation>
    </message>
    <message>
        <source>HTTP version %1.%2 is not supported: use HTTP/1.1</source>
        <translation>不支持 HTTP %1.%2 版本：请使用 HTTP/1.1</translation>
    </message>
    <message>
        <source>CONNECT is not supported</source>
        <translation>不支持 CONNECT 请求</translation>
    </message>
    <message>
        <source>protocol upgrades are not supported</source>
        <translation>不支持协议升级</translation>
    </message>
    <message>
        <source>request body too large: at most %1 bytes</source>
        <translation>请求体过大：最多 %1 字节</translation>
    </message>
    <message>
        <source>malformed request line: it must be the method, one space, the target, one space and the HTTP version</source>
        <translation>请求行格式错误：必须是方法、一个空格、请求目标、一个空格和 HTTP 版本</translation>
    </message>
    <message>
        <source>malformed chunked body: a chunk extension must be ;name or ;name=value, the value a token or a quoted string</source>
        <translation>分块请求体格式错误：分块扩展必须是 ;name 或 ;name=value，值为 token 或带引号的字符串</translation>
    </message>
    <message>
        <source>malformed chunked body: a chunk-size line and a chunk&apos;s data must end in CRLF</source>
        <translation>分块请求体格式错误：分块大小行和分块数据都必须以 CRLF 结尾</translation>
    </message>
    <message>
        <source>malformed chunked body: a chunk-size line with its extensions is at most %1 bytes</source>
        <translation>分块请求体格式错误：分块大小行（含扩展）最多 %1 字节</translation>
    </message>
</context>
<context>
    <name>lantern::HttpServer</name>
    <message>
        <source>cannot listen on %1:%2: %3</source>
        <translation>无法监听 %1:%2：%3</translation>
    </message>
    <message>
        <source>invalid --listen &apos;%1&apos;: expected HOST:PORT with an IP address, e.g. 127.0.0.1:8080</source>
        <translation>--listen“%1”无效：应为 HOST:PORT，HOST 为 IP 地址，例如 127.0.0.1:8080</translation>
    </message>
</context>
<context>
    <name>lantern::KeySchema</name>
    <message>
        <source>invalid key prefix &apos;%1&apos;: use up to 32 of A-Z a-z 0-9 _ . : -</source>
        <translation>键前缀“%1”无效：最多 32 个字符，只能使用 A-Z a-z 0-9 _ . : -</translation>
    </message>
    <message>
        <source>invalid shard count %1: expected 1..16384</source>
        <translation>分片数 %1 无效：应为 1..16384</translation>
    </message>
    <message>
        <source>invalid worker id &apos;%1&apos;: use 1 to 64 of A-Z a-z 0-9 _ . -</source>
        <translation>工作进程 ID“%1”无效：应为 1 到 64 个字符，只能使用 A-Z a-z 0-9 _ . -</translation>
    </message>
    <message>
        <source>invalid dense uid bound %1: expected 0..2^40</source>
        <translation>无效的稠密 uid 上限 %1：应为 0..2^40</translation>
    </message>
</context>
<context>
    <name>lantern::LayoutMigration</name>
    <message>
        <source>%1 is in slot %2 but the uid&apos;s blocks are in slot %3 (shard %4): its shard tag was written with another shard count, so it cannot move in one step on a Redis Cluster; migrate it on a single server</source>
        <translation>%1 位于槽 %2，但该 uid 的块位于槽 %3（分片 %4）：它的分片标签是按另一个分片数写入的，因此无法在 Redis Cluster 上一步迁移；请在单个 Redis 服务器上迁移它</translation>
    </message>
</context>
<context>
    <name>lantern::LedgerModel</name>
    <message>
        <source>Check-in reward</source>
        <translation>签到奖励</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>积分</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>关联记录</translation>
    </message>
</context>
<context>
    <name>lantern::LuaScript</name>
    <message>
        <source>Redis computed a different SHA1 for script %1</source>
        <translation>Redis 为脚本 %1 算出的 SHA1 与预期不符</translation>
    </message>
    <message>
        <source>Redis %1 does not hold Lantern&apos;s script %2 (after a restart or SCRIPT FLUSH) and this account may not load it: start a worker or the API, or run lanternd access install, which load the scripts</source>
        <translation>Redis %1 中没有 Lantern 的脚本 %2（重启或 SCRIPT FLUSH 之后），而此账号无权加载：请启动一个 worker 或 API，或运行 lanternd access install，它们会加载脚本</translation>
    </message>
</context>
<context>
    <name>lantern::MasterScan</name>
    <message>
        <source>unexpected SCAN reply from %1</source>
        <translation>来自 %1 的 SCAN 应答出乎意料</translation>
    </message>
</context>
<context>
    <name>lantern::Migrator</name>
    <message>
        <source>cannot create the database directory %1</source>
        <translation>无法创建数据库目录 %1</translation>
    </message>
    <message>
        <source>another process holds the migration lock for over 30 s</source>
        <translation>另一个进程持有迁移锁已超过 30 秒</translation>
    </message>
</context>
<context>
    <name>lantern::MonthStatsModel</name>
    <message>
        <source>Day</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>Checked in</source>
        <translation>已签到</translation>
    </message>
    <message>
        <source>Make-ups</source>
        <translation>补签</translation>
    </message>
</context>
<context>
    <name>lantern::PayoutDispatcher</name>
    <message numerus="yes">
        <source>the worker stopped while %n payout(s) were in flight</source>
        <translation>
            <numerusform>工作进程在 %n 笔发放进行中时停止了</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lantern::PayoutGateway</name>
    <message>
        <source>a payout needs an idempotency key of 1 to 255 characters</source>
        <translation>发放需要 1 到 255 个字符的幂等键</translation>
    </message>
    <message>
        <source>a payout of %1 cents is not possible: the amount must be positive</source>
        <translation>无法发放 %1 分：金额必须为正数</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected a whole number from 1 to %3</source>
        <translation>%1“%2”无效：应为 1 到 %3 的整数</translation>
    </message>
</context>
<context>
    <name>lantern::PayoutRateLimit</name>
    <message>
        <source>invalid payout rate %1: expected more than 0 and at most %2 calls a second</source>
        <translation>支付速率 %1 无效：应大于 0 且不超过每秒 %2 次调用</translation>
    </message>
    <message>
        <source>invalid payout burst %1: expected 0 or more</source>
        <translation>支付突发量 %1 无效：应为 0 或更大</translation>
    </message>
    <message>
        <source>unexpected reply of payout_rate.lua</source>
        <translation>payout_rate.lua 返回了意外的结果</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected calls per second, a number above 0 and at most %3, such as 200</source>
        <translation>%1“%2”无效：应为每秒调用次数，大于 0 且不超过 %3 的数，例如 200</translation>
    </message>
</context>
<context>
    <name>lantern::ProfileStore</name>
    <message>
        <source>A profile name is 1 to 64 letters, digits, “_”, “.” or “-”.</source>
        <translation>连接配置名称须为 1 到 64 个字母、数字、“_”、“.”或“-”。</translation>
    </message>
    <message>
        <source>Cannot create the folder %1 for connection profiles.</source>
        <translation>无法创建连接配置目录 %1。</translation>
    </message>
    <message>
        <source>Cannot write the profile file %1.</source>
        <translation>无法写入连接配置文件 %1。</translation>
    </message>
</context>
<context>
    <name>lantern::QueueFormat</name>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 天 %2 小时</translation>
    </message>
    <message>
        <source>Check-in log</source>
        <translation>签到流水</translation>
    </message>
    <message>
        <source>Payouts, campaign %1</source>
        <translation>红包发放（活动 %1）</translation>
    </message>
    <message>
        <source>Check-in log, shard %1</source>
        <translation>签到流水（分片 %1）</translation>
    </message>
</context>
<context>
    <name>lantern::QueueJobRunner</name>
    <message>
        <source>Another action is still running; wait for it or cancel it first.</source>
        <translation>另一个操作仍在进行中；请等待它完成，或先取消它。</translation>
    </message>
</context>
<context>
    <name>lantern::QueueService</name>
    <message>
        <source>an operator name is required</source>
        <translation>需要填写操作人</translation>
    </message>
    <message numerus="yes">
        <source>%n were no longer there (taken meanwhile).</source>
        <translation>
            <numerusform>另有 %n 条已不存在（期间已被处理）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelled before the end; the rest is untouched.</source>
        <translation>操作中途已取消；其余条目保持不变。</translation>
    </message>
    <message numerus="yes">
        <source>%n entry(s) of “%1” put back on the queue.</source>
        <translation>
            <numerusform>已把“%1”中的 %n 条放回队列。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entry(s) of “%1” discarded.</source>
        <translation>
            <numerusform>已丢弃“%1”中的 %n 条。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n unreadable entry(s) left in the list: a worker could not read them. Edit or discard them.</source>
        <translation>
            <numerusform>%n 条无法解析的条目留在列表中：工作进程无法读取它们。请编辑或丢弃。</numerusform>
        </translation>
    </message>
    <message>
        <source>The edited entry is back on the queue of “%1”.</source>
        <translation>编辑后的条目已放回“%1”的队列。</translation>
    </message>
    <message>
        <source>The entry was no longer in “%1” (taken meanwhile); nothing was queued.</source>
        <translation>该条目已不在“%1”中（期间已被处理）；没有放入任何任务。</translation>
    </message>
</context>
<context>
    <name>lantern::QueueTableModel</name>
    <message>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Oldest waits</source>
        <translation>最长等待</translation>
    </message>
    <message>
        <source>Dead letters</source>
        <translation>死信</translation>
    </message>
    <message>
        <source>Click to open these dead letters</source>
        <translation>点击打开这些死信</translation>
    </message>
    <message>
        <source>Oldest waits (s)</source>
        <translation>最长等待（秒）</translation>
    </message>
</context>
<context>
    <name>lantern::QueueWorkerModel</name>
    <message numerus="yes">
        <source>Its heartbeat is renewed every few seconds and expires after %n s.</source>
        <translation>
            <numerusform>心跳每隔几秒续期一次，%n 秒后过期。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No heartbeat for more than %n s: what it holds waits for recovery (see Recovery).</source>
        <translation>
            <numerusform>超过 %n 秒没有心跳：它持有的任务等待恢复（见“故障恢复”）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Alive</source>
        <translation>在线</translation>
    </message>
    <message>
        <source>Dead</source>
        <translation>失联</translation>
    </message>
    <message>
        <source>%1 ago</source>
        <translation>%1前</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Last heartbeat</source>
        <translation>最近心跳</translation>
    </message>
    <message>
        <source>In flight</source>
        <translation>处理中</translation>
    </message>
    <message>
        <source>Tasks in its backup lists: claimed, not yet settled.</source>
        <translation>其备份列表中的任务：已领取、尚未结清。</translation>
    </message>
    <message>
        <source>Payouts the provider confirmed per second, between the worker&apos;s last two heartbeats.</source>
        <translation>最近两次心跳之间，支付方每秒确认的发放笔数。</translation>
    </message>
    <message>
        <source>Calls to the payout provider waiting for an answer at its last heartbeat (at most lanternd work --in-flight).</source>
        <translation>上次心跳时正在等待支付方应答的调用数（最多为 lanternd work --in-flight）。</translation>
    </message>
    <message>
        <source>Calls that did not come back paid (timeouts, 5xx, refusals), of %1 calls since the worker started; each is retried with the same idempotency key.</source>
        <translation>工作进程启动以来共 %1 次调用中未返回成功的调用（超时、5xx、拒绝）；每次都会用同一个幂等键重试。</translation>
    </message>
    <message>
        <source>Payouts/s</source>
        <translation>发放/秒</translation>
    </message>
    <message>
        <source>Calls out</source>
        <translation>进行中的调用</translation>
    </message>
    <message>
        <source>Provider errors</source>
        <translation>支付方错误</translation>
    </message>
    <message>
        <source>Last heartbeat (s ago)</source>
        <translation>最近心跳（秒前）</translation>
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
        <translation>已平账</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message numerus="yes">
        <source>%n violation(s)</source>
        <translation>
            <numerusform>%n 项异常</numerusform>
        </translation>
    </message>
    <message>
        <source>Every grab has its row and exactly one payout.</source>
        <translation>每次抢红包都有对应记录，且恰好对应一笔发放。</translation>
    </message>
    <message numerus="yes">
        <source>%n held by dead workers</source>
        <translation>
            <numerusform>%n 笔在失联工作进程手中</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n queued</source>
        <translation>
            <numerusform>%n 笔排队中</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n with live workers</source>
        <translation>
            <numerusform>%n 笔正由在线工作进程处理</numerusform>
        </translation>
    </message>
    <message>
        <source>Payouts still on their way: %1.</source>
        <translation>仍有发放在途：%1。</translation>
    </message>
    <message>
        <source>Campaign</source>
        <translation>活动</translation>
    </message>
    <message>
        <source>Ledger check</source>
        <translation>账本核对</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>, </source>
        <comment>separator between the items of a list</comment>
        <translation>，</translation>
    </message>
    <message>
        <source>Grabs and payouts judged from the tally the workers keep as they write them (a row changed by hand is counted again); lanternd verify reads every row and compares the tally with them.</source>
        <translation>抢红包和发放按工作进程写入时维护的累计数判断（手工改动过的记录会重新统计）；lanternd verify 会读取每一条记录，并与累计数比对。</translation>
    </message>
</context>
<context>
    <name>lantern::RecoveryService</name>
    <message>
        <source>an operator name is required</source>
        <translation>需要填写操作人</translation>
    </message>
    <message numerus="yes">
        <source>Compensated %n worker(s):</source>
        <translation>
            <numerusform>已补偿 %n 个工作进程：</numerusform>
        </translation>
    </message>
    <message>
        <source>Skipped because their heartbeat came back: %1.</source>
        <translation>因心跳恢复而跳过：%1。</translation>
    </message>
    <message numerus="yes">
        <source>Cancelled: %n worker(s) left untouched.</source>
        <translation>
            <numerusform>已取消：%n 个工作进程未做处理。</numerusform>
        </translation>
    </message>
    <message>
        <source>cannot reconcile %1: it is after today</source>
        <translation>不能对账 %1：该日期晚于今天</translation>
    </message>
    <message>
        <source>, </source>
        <comment>separator between the items of a list</comment>
        <translation>，</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) completed from SQL, %1 re-queued, %2 set aside as unreadable.</source>
        <translation>
            <numerusform>%n 个任务按 SQL 记录标记完成，%1 个重新入队，%2 个因无法解析而移入死信。</numerusform>
        </translation>
    </message>
    <message>
        <source>Rule %1: %2</source>
        <extracomment>One broken rule of the ledger check (DESIGN §4), as the Campaigns view words it too.</extracomment>
        <translation>规则 %1：%2</translation>
    </message>
</context>
<context>
    <name>lantern::RecoveryTaskModel</name>
    <message>
        <source>Heartbeat expired: this worker is gone, and what its backup lists hold waits for compensation.</source>
        <translation>心跳已过期：该工作进程已失联，其备份队列中的任务等待补偿。</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) held, first %1 shown</source>
        <translation>
            <numerusform>持有 %n 个任务，显示前 %1 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) held</source>
        <translation>
            <numerusform>持有 %n 个任务</numerusform>
        </translation>
    </message>
    <message>
        <source>Forget the worker</source>
        <translation>移除该工作进程</translation>
    </message>
    <message>
        <source>%1 complete, %2 re-queue</source>
        <translation>%1 个完成，%2 个重新入队</translation>
    </message>
    <message>
        <source>User %1 on %2 (make-up)</source>
        <translation>用户 %1，%2（补签）</translation>
    </message>
    <message>
        <source>User %1 on %2</source>
        <translation>用户 %1，%2</translation>
    </message>
    <message>
        <source>Envelope %1: %2 to user %3</source>
        <translation>红包 %1：向用户 %3 发放 %2 元</translation>
    </message>
    <message>
        <source>Unreadable entry</source>
        <translation>无法解析的条目</translation>
    </message>
    <message>
        <source>Log row saved</source>
        <translation>流水已写入</translation>
    </message>
    <message>
        <source>No log row</source>
        <translation>无流水记录</translation>
    </message>
    <message>
        <source>Grab row saved</source>
        <translation>抢红包记录已写入</translation>
    </message>
    <message>
        <source>No grab row</source>
        <translation>无抢红包记录</translation>
    </message>
    <message>
        <source>No payout row</source>
        <translation>无发放记录</translation>
    </message>
    <message>
        <source>Paid</source>
        <translation>已发放</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>待发放</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>发放失败</translation>
    </message>
    <message>
        <source>provider paid %1</source>
        <translation>支付方已付 %1 元</translation>
    </message>
    <message>
        <source>Complete (done in SQL)</source>
        <translation>标记完成（SQL 中已完成）</translation>
    </message>
    <message>
        <source>Re-queue</source>
        <translation>重新入队</translation>
    </message>
    <message>
        <source>Dead-letter</source>
        <translation>移入死信</translation>
    </message>
    <message>
        <source>Worker / task</source>
        <translation>工作进程 / 任务</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>In SQL</source>
        <translation>SQL 记录</translation>
    </message>
    <message>
        <source>Payout</source>
        <translation>发放</translation>
    </message>
    <message>
        <source>Compensation will</source>
        <translation>补偿时将</translation>
    </message>
</context>
<context>
    <name>lantern::RedisClient</name>
    <message>
        <source>expected an integer reply from Redis</source>
        <translation>Redis 应返回整数应答</translation>
    </message>
    <message>
        <source>expected a string reply from Redis</source>
        <translation>Redis 应返回字符串应答</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>failed while sending</source>
        <translation>发送命令时出错</translation>
    </message>
    <message>
        <source>failed while reading a reply</source>
        <translation>读取应答时出错</translation>
    </message>
    <message>
        <source>read-only connection (setting read-only): %1 was not sent to %2; only read commands are allowed</source>
        <translation>只读连接（设置项 read-only）：%1 没有发送到 %2；只允许读命令</translation>
    </message>
    <message>
        <source>Redis at %1:%2 is loading its dataset</source>
        <translation>%1:%2 上的 Redis 正在加载数据集</translation>
    </message>
    <message>
        <source>Redis at %1:%2 is busy running a script</source>
        <translation>%1:%2 上的 Redis 正忙于运行脚本</translation>
    </message>
    <message>
        <source>Redis at %1:%2 is a replica that lost its link to the primary</source>
        <translation>%1:%2 上的 Redis 是与主节点失去连接的副本</translation>
    </message>
    <message>
        <source>the Redis cluster of %1:%2 is down</source>
        <translation>%1:%2 所在的 Redis 集群不可用</translation>
    </message>
    <message>
        <source>Redis at %1:%2 is moving the keys of this request to another node</source>
        <translation>%1:%2 上的 Redis 正在把此请求的键迁移到另一个节点</translation>
    </message>
    <message>
        <source>Redis at %1 answered CLUSTER SLOTS with a reply of an unexpected shape</source>
        <translation>Redis（%1）对 CLUSTER SLOTS 的应答格式不符合预期</translation>
    </message>
    <message>
        <source>no seed of the Redis Cluster %1 answered: %2</source>
        <translation>Redis 集群 %1 的种子节点都没有应答：%2</translation>
    </message>
    <message>
        <source>invalid Redis URL %1: a seed list names the nodes of a Redis Cluster, but %2 is not a cluster node (%3)</source>
        <translation>Redis URL %1 无效：种子列表应列出 Redis 集群的节点，但 %2 不是集群节点（%3）</translation>
    </message>
    <message>
        <source>Redis at %1 answered CLUSTER SLOTS with %2</source>
        <translation>Redis（%1）对 CLUSTER SLOTS 的应答是 %2</translation>
    </message>
    <message>
        <source>Redis at %1 knows no master of the cluster</source>
        <translation>Redis（%1）不知道集群的任何主节点</translation>
    </message>
    <message>
        <source>no node of the Redis Cluster %1 answered: %2</source>
        <translation>Redis 集群 %1 没有任何节点应答：%2</translation>
    </message>
    <message>
        <source>a MULTI without its EXEC in the same pipeline cannot be routed on a Redis Cluster; nothing was sent</source>
        <translation>同一流水线中缺少与 MULTI 配对的 EXEC，无法在 Redis 集群上路由；未发送任何命令</translation>
    </message>
    <message>
        <source>%1 has no cluster-wide answer on a Redis Cluster (each node answers for its own keys only); nothing was sent</source>
        <translation>%1 在 Redis 集群上没有全集群范围的结果（每个节点只回答自己的键）；未发送任何命令</translation>
    </message>
    <message>
        <source>%1 inside MULTI ... EXEC would have to run on every master of the Redis Cluster; nothing was sent</source>
        <translation>MULTI ... EXEC 中的 %1 需要在 Redis 集群的每个主节点上执行；未发送任何命令</translation>
    </message>
    <message>
        <source>%1 names keys in different slots of the Redis Cluster (&apos;%2&apos; in slot %3, &apos;%4&apos; in slot %5): a command, a transaction or a script runs within one slot; nothing was sent</source>
        <translation>%1 涉及 Redis 集群中不同槽位的键（“%2”在槽位 %3，“%4”在槽位 %5）：一条命令、一个事务或一个脚本只能在一个槽位内执行；未发送任何命令</translation>
    </message>
    <message>
        <source>invalid Redis URL: %1 is a Redis Cluster node, and a cluster has only database 0; leave the database out of the URL</source>
        <translation>Redis URL 无效：%1 是 Redis 集群节点，集群只有 0 号数据库；请在 URL 中去掉数据库编号</translation>
    </message>
    <message>
        <source>Redis at %1 is unreachable: %2</source>
        <translation>Redis %1 无法连接：%2</translation>
    </message>
    <message>
        <source>Redis at %1 did not complete the TLS handshake within %2 ms; if this is a plaintext port, connect with redis://</source>
        <translation>Redis %1 未在 %2 毫秒内完成 TLS 握手；如果这是明文端口，请用 redis:// 连接</translation>
    </message>
    <message>
        <source>Redis at %1 is not connected</source>
        <translation>Redis %1 尚未连接</translation>
    </message>
    <message>
        <source>Redis at %1 failed while sending: %2</source>
        <translation>Redis %1 发送时出错：%2</translation>
    </message>
    <message>
        <source>Redis at %1 failed while reading a reply: %2</source>
        <translation>Redis %1 读取回复时出错：%2</translation>
    </message>
    <message>
        <source>invalid Redis URL: %1 has no database %2 (Redis at %3)</source>
        <translation>Redis URL 无效：%1 没有数据库 %2（Redis %3）</translation>
    </message>
    <message>
        <source>Redis at %1 rejected the connection: %2</source>
        <translation>Redis %1 拒绝了连接：%2</translation>
    </message>
    <message>
        <source>%1 answered %2</source>
        <translation>%1 的应答为 %2</translation>
    </message>
    <message>
        <source>invalid Redis URL %1: no Redis Sentinel knows a master named &apos;%2&apos; (asked %3)</source>
        <translation>Redis URL 无效（%1）：没有任何 Redis Sentinel 知道名为“%2”的主节点（已询问 %3）</translation>
    </message>
    <message>
        <source>no Redis Sentinel of %1 answered: %2</source>
        <translation>%1 的 Redis Sentinel 均无应答：%2</translation>
    </message>
    <message>
        <source>no Redis Sentinel of %1 named the master &apos;%2&apos;: %3 did not know it; %4</source>
        <translation>%1 的 Redis Sentinel 都没有给出主节点“%2”：%3 不知道它；%4</translation>
    </message>
    <message>
        <source>Redis at %1, which the sentinels name as the master &apos;%2&apos;, answers ROLE as %3; a failover may be under way</source>
        <translation>Sentinel 指明为主节点“%2”的 Redis %1 对 ROLE 的应答为 %3；可能正在进行故障转移</translation>
    </message>
    <message>
        <source>Redis at %1 is no longer the master &apos;%2&apos; (a Sentinel failover); the next connection asks the sentinels again</source>
        <translation>Redis %1 已不再是主节点“%2”（Sentinel 故障转移）；下次连接会重新询问 Sentinel</translation>
    </message>
    <message>
        <source>answered with TLS: this port speaks TLS only; connect with rediss://</source>
        <translation>以 TLS 应答：此端口只接受 TLS；请用 rediss:// 连接</translation>
    </message>
    <message>
        <source>closed the connection before answering; if this is its TLS port, connect with rediss://</source>
        <translation>未应答就关闭了连接；如果这是它的 TLS 端口，请用 rediss:// 连接</translation>
    </message>
    <message>
        <source>closed the connection</source>
        <translation>关闭了连接</translation>
    </message>
    <message>
        <source>failed while reading a reply: %1</source>
        <translation>读取回复时出错：%1</translation>
    </message>
    <message>
        <source>failed while sending: %1</source>
        <translation>发送时出错：%1</translation>
    </message>
    <message>
        <source>Redis at %1 %2</source>
        <translation>Redis %1 %2</translation>
    </message>
    <message>
        <source>cannot start TLS: %1</source>
        <translation>无法启动 TLS：%1</translation>
    </message>
    <message>
        <source>failed during the TLS handshake</source>
        <translation>TLS 握手失败</translation>
    </message>
    <message>
        <source>sent no certificate</source>
        <translation>没有出示证书</translation>
    </message>
    <message>
        <source>closed the connection right after the TLS handshake%1</source>
        <translation>在 TLS 握手后立即关闭了连接%1</translation>
    </message>
    <message>
        <source> (does it ask for a client certificate? then give --redis-cert and --redis-key)</source>
        <translation>（它是否要求客户端证书？如是，请提供 --redis-cert 和 --redis-key）</translation>
    </message>
    <message>
        <source> (did it refuse the client certificate %1?)</source>
        <translation>（它是否拒绝了客户端证书 %1？）</translation>
    </message>
    <message>
        <source>answered without TLS: this port does not speak TLS; connect with redis://, or to the server&apos;s tls-port</source>
        <translation>以明文应答：此端口不支持 TLS；请用 redis:// 连接，或连接服务器的 tls-port</translation>
    </message>
    <message>
        <source>asks for a client certificate (mutual TLS): give one with --redis-cert and --redis-key</source>
        <translation>要求客户端证书（双向 TLS）：请用 --redis-cert 和 --redis-key 提供</translation>
    </message>
    <message>
        <source>refused the client certificate %1: %2</source>
        <translation>拒绝了客户端证书 %1：%2</translation>
    </message>
    <message>
        <source>closed the connection during the TLS handshake</source>
        <translation>在 TLS 握手期间关闭了连接</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>TLS error %1</source>
        <translation>TLS 错误 %1</translation>
    </message>
    <message>
        <source>Redis at %1 sent a reply that cannot be read: %2</source>
        <translation>Redis %1 发来无法解析的回复：%2</translation>
    </message>
    <message>
        <source>an unreadable date</source>
        <translation>无法读取的日期</translation>
    </message>
    <message>
        <source>%1, certificate %2, valid until %3, verify %4</source>
        <translation>%1，证书 %2，有效期至 %3，校验 %4</translation>
    </message>
    <message>
        <source>presented a certificate that expired on %1 (%2)</source>
        <translation>出示的证书已于 %1 过期（%2）</translation>
    </message>
    <message>
        <source>presented a certificate whose issuer&apos;s certificate has expired (%1)</source>
        <translation>出示的证书的签发者证书已过期（%1）</translation>
    </message>
    <message>
        <source>presented a certificate that is not valid before %1 (%2); check the clocks</source>
        <translation>出示的证书在 %1 之前无效（%2）；请检查时钟</translation>
    </message>
    <message>
        <source>presented an untrusted certificate (%1, issued by %2): no CA of this system signed it; give the server&apos;s CA with --redis-ca FILE</source>
        <translation>出示了不受信任的证书（%1，签发者 %2）：本系统的任何 CA 都未签发它；请用 --redis-ca FILE 提供服务器的 CA</translation>
    </message>
    <message>
        <source>presented an untrusted certificate (%1, issued by %2): the CA in %3 did not sign it</source>
        <translation>出示了不受信任的证书（%1，签发者 %2）：%3 中的 CA 没有签发它</translation>
    </message>
    <message>
        <source>presented a certificate that cannot be trusted (%1): %2</source>
        <translation>出示的证书无法信任（%1）：%2</translation>
    </message>
    <message>
        <source>presented a certificate for %1, but was reached as %2: connect by one of the certificate&apos;s names, name it with --redis-sni, or check the chain only with --redis-verify ca</source>
        <translation>出示的证书属于 %1，但连接使用的是 %2：请用证书中的某个名称连接，或用 --redis-sni 指定该名称，或用 --redis-verify ca 只校验证书链</translation>
    </message>
</context>
<context>
    <name>lantern::RedisDurability</name>
    <message>
        <source>Redis writes its AOF to disk once a second (appendfsync everysec): an OS crash can lose about the last second of grabs users were told they won. The ledger pays nobody twice and a repair rebuilds the campaign from SQL, but those users are not paid. Set appendfsync always to lose none.</source>
        <translation>Redis 每秒把 AOF 写入磁盘一次（appendfsync everysec）：操作系统崩溃时，可能丢失大约最后一秒内已告知用户抢到的红包。账本不会重复发放，修复会依据 SQL 重建活动，但这些用户拿不到钱。设置 appendfsync always 可做到一条不丢。</translation>
    </message>
    <message>
        <source>Redis leaves flushing its AOF to the OS (appendfsync no): an OS crash can lose about the last 30 seconds of grabs users were told they won. Set appendfsync always to lose none.</source>
        <translation>Redis 把 AOF 的刷盘交给操作系统（appendfsync no）：操作系统崩溃时，可能丢失大约最后 30 秒内已告知用户抢到的红包。设置 appendfsync always 可做到一条不丢。</translation>
    </message>
    <message>
        <source>Redis keeps no AOF (appendonly no): a restart loses every grab since its last snapshot, grabs users were told they won. Set appendonly yes and appendfsync always to lose none.</source>
        <translation>Redis 未开启 AOF（appendonly no）：重启会丢失上次快照之后的所有抢红包记录，而这些用户已被告知抢到。设置 appendonly yes 和 appendfsync always 可做到一条不丢。</translation>
    </message>
    <message>
        <source>Redis does not say how it persists (CONFIG GET is not allowed): unless it runs appendonly yes with appendfsync always, a crash can lose grabs users were told they won.</source>
        <translation>Redis 不允许查询其持久化方式（CONFIG GET 被禁用）：除非它以 appendonly yes 和 appendfsync always 运行，否则崩溃时可能丢失已告知用户抢到的红包。</translation>
    </message>
    <message>
        <source>Redis keeps no AOF and takes no snapshots (appendonly no, save &quot;&quot;): a restart loses everything it holds, grabs users were told they won among it. Set appendonly yes and appendfsync always to lose none.</source>
        <translation>Redis 既未开启 AOF，也不做快照（appendonly no，save &quot;&quot;）：重启会丢失它保存的全部数据，其中包括已告知用户抢到的红包。设置 appendonly yes 和 appendfsync always 可做到一条不丢。</translation>
    </message>
</context>
<context>
    <name>lantern::RedisPipe</name>
    <message>
        <source>cannot be resolved: %1</source>
        <translation>无法解析主机名：%1</translation>
    </message>
    <message>
        <source>is unreachable: %1</source>
        <translation>无法连接：%1</translation>
    </message>
    <message>
        <source>sent a reply nobody asked for</source>
        <translation>返回了未经请求的应答</translation>
    </message>
    <message>
        <source>did not accept the connection within %1 ms</source>
        <translation>未在 %1 毫秒内接受连接</translation>
    </message>
    <message>
        <source>did not answer within %1 ms</source>
        <translation>未在 %1 毫秒内应答</translation>
    </message>
    <message>
        <source>%1 names keys in different slots of the Redis Cluster (%2 and %3); nothing was sent</source>
        <translation>%1 涉及 Redis 集群中不同槽位的键（%2 和 %3）；未发送任何命令</translation>
    </message>
    <message>
        <source>%1 is not sent by lanternd serve on a Redis Cluster; nothing was sent</source>
        <translation>lanternd serve 在 Redis 集群上不发送 %1；未发送任何命令</translation>
    </message>
    <message>
        <source>Redis at %1 %2</source>
        <translation>Redis（%1）%2</translation>
    </message>
    <message>
        <source>did not complete the TLS handshake within %1 ms; if this is a plaintext port, connect with redis://</source>
        <translation>未在 %1 毫秒内完成 TLS 握手；如果这是明文端口，请用 redis:// 连接</translation>
    </message>
</context>
<context>
    <name>lantern::RedisTlsOptions</name>
    <message>
        <source>cannot use %1 %2: %3</source>
        <translation>无法使用%1 %2：%3</translation>
    </message>
    <message>
        <source>OpenSSL cannot make a TLS context: %1</source>
        <translation>OpenSSL 无法创建 TLS 上下文：%1</translation>
    </message>
    <message>
        <source>the Redis CA file</source>
        <translation>Redis CA 文件</translation>
    </message>
    <message>
        <source>the Redis client certificate</source>
        <translation>Redis 客户端证书</translation>
    </message>
    <message>
        <source>the Redis client key</source>
        <translation>Redis 客户端私钥</translation>
    </message>
    <message>
        <source>it is not the key of the certificate %1</source>
        <translation>它不是证书 %1 的私钥</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected full (chain and host name), ca (chain only) or none</source>
        <translation>%1 无效（“%2”）：应为 full（证书链和主机名）、ca（仅证书链）或 none</translation>
    </message>
    <message>
        <source>--redis-ca, --redis-cert, --redis-key and --redis-sni are for TLS: use a rediss:// URL</source>
        <translation>--redis-ca、--redis-cert、--redis-key 和 --redis-sni 用于 TLS：请使用 rediss:// URL</translation>
    </message>
    <message>
        <source>--redis-key needs its certificate: give --redis-cert too</source>
        <translation>--redis-key 需要对应的证书：请同时提供 --redis-cert</translation>
    </message>
    <message>
        <source>TLS to %1 checks no certificate (--redis-verify none): anyone on the path can read and change the traffic</source>
        <translation>到 %1 的 TLS 不检查任何证书（--redis-verify none）：链路上的任何人都能读取和篡改通信</translation>
    </message>
</context>
<context>
    <name>lantern::RedisUrl</name>
    <message>
        <source>invalid Redis port in &apos;%1&apos;</source>
        <translation>“%1”中的 Redis 端口无效</translation>
    </message>
    <message>
        <source>invalid Redis database number &apos;%1&apos; in URL</source>
        <translation>URL 中的 Redis 数据库编号“%1”无效</translation>
    </message>
    <message>
        <source>invalid Redis URL &apos;%1&apos;: seed %2 of the list is empty; expected redis://[user:password@]host:port,host:port,...</source>
        <translation>Redis URL“%1”无效：列表中第 %2 个种子节点为空；应为 redis://[user:password@]host:port,host:port,...</translation>
    </message>
    <message>
        <source>invalid Redis URL &apos;%1&apos;: a seed list names a Redis Cluster, which has only database 0</source>
        <translation>Redis URL“%1”无效：种子列表表示 Redis 集群，而集群只有 0 号数据库</translation>
    </message>
    <message>
        <source>invalid Redis URL &apos;%1&apos;: expected redis://[user:password@]host:port[/db] (rediss:// for TLS)</source>
        <translation>Redis URL 无效（“%1”）：应为 redis://[user:password@]host:port[/db]（TLS 用 rediss://）</translation>
    </message>
    <message>
        <source>invalid Redis Sentinel URL &apos;%1&apos;: expected redis-sentinel://[user:password@]host:port[,host:port...][/db]#MASTER, naming the master after &apos;#&apos;</source>
        <translation>Redis Sentinel URL 无效（“%1”）：应为 redis-sentinel://[user:password@]host:port[,host:port...][/db]#MASTER，在“#”后写主节点名</translation>
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
    <name>lantern::SandboxDirectory</name>
    <message>
        <source>The sandbox folder %1 could not be created.</source>
        <translation>无法创建沙盒目录 %1。</translation>
    </message>
    <message>
        <source>No folder of its own could be made for the sandbox under %1.</source>
        <translation>无法在 %1 下为沙盒创建独立的目录。</translation>
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
    <message>
        <source>The sandbox worker stopped.</source>
        <translation>沙盒的工作进程已停止。</translation>
    </message>
</context>
<context>
    <name>lantern::ScheduleWords</name>
    <message>
        <source>No time was changed.</source>
        <translation>没有更改任何时间。</translation>
    </message>
    <message>
        <source>The late limit must be between 1 second and 7 days.</source>
        <translation>延迟上限必须在 1 秒到 7 天之间。</translation>
    </message>
    <message>
        <source>The campaign is closed: it takes no times any more.</source>
        <translation>活动已结束：不能再设置时间。</translation>
    </message>
    <message>
        <source>Only a draft can be given a launch time: this campaign was launched already.</source>
        <translation>只有草稿可以设置上线时间：此活动已经上线。</translation>
    </message>
    <message>
        <source>The launch time %1 has passed: the servers&apos; time is %2.</source>
        <translation>上线时间 %1 已过：服务器时间为 %2。</translation>
    </message>
    <message>
        <source>The close time %1 has passed: the servers&apos; time is %2.</source>
        <translation>结束时间 %1 已过：服务器时间为 %2。</translation>
    </message>
    <message>
        <source>The close (%1) must come after the launch (%2).</source>
        <translation>结束时间（%1）必须晚于上线时间（%2）。</translation>
    </message>
    <message>
        <source>A late limit needs a launch or close time.</source>
        <translation>设置延迟上限前需要先设置上线或结束时间。</translation>
    </message>
</context>
<context>
    <name>lantern::ServerStatus</name>
    <message>
        <source>down</source>
        <translation>不可用</translation>
    </message>
</context>
<context>
    <name>lantern::SimulatedPayoutGateway</name>
    <message>
        <source>invalid payout failure rate %1: expected a number from 0 to 1</source>
        <translation>发放失败率 %1 无效：应为 0 到 1 之间的数</translation>
    </message>
    <message>
        <source>invalid payout delay %1 ms: expected 0 to %2</source>
        <translation>发放延迟 %1 毫秒无效：应为 0 到 %2</translation>
    </message>
    <message>
        <source>the simulated payout provider failed before paying (injected failure)</source>
        <translation>模拟支付方在付款前失败（注入的故障）</translation>
    </message>
    <message>
        <source>the simulated payout provider failed: %1</source>
        <translation>模拟支付方失败：%1</translation>
    </message>
    <message>
        <source>the simulated payout provider holds an unreadable ledger entry for key %1</source>
        <translation>模拟支付方账本中键 %1 的记录无法读取</translation>
    </message>
    <message>
        <source>idempotency key %1 was already paid with %2 cents, not %3</source>
        <translation>幂等键 %1 已按 %2 分付款，而不是 %3 分</translation>
    </message>
    <message>
        <source>the simulated payout provider&apos;s answer was lost after paying (injected failure)</source>
        <translation>模拟支付方付款后应答丢失（注入的故障）</translation>
    </message>
    <message>
        <source>the simulated payout provider is unreachable: %1</source>
        <translation>无法连接模拟支付方：%1</translation>
    </message>
    <message>
        <source>the simulated payout ledger holds an unreadable entry for key %1</source>
        <translation>模拟支付账本中键 %1 的记录无法读取</translation>
    </message>
    <message>
        <source>unexpected reply to HSCAN of the simulated payout ledger</source>
        <translation>模拟支付账本的 HSCAN 返回了意外的应答</translation>
    </message>
    <message>
        <source>the simulated payout ledger&apos;s total does not fit in 64 bits</source>
        <translation>模拟支付账本的合计超出 64 位整数范围</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected a number from 0 to 1, such as 0.25</source>
        <translation>%1“%2”无效：应为 0 到 1 之间的数，例如 0.25</translation>
    </message>
    <message>
        <source>invalid %1 &apos;%2&apos;: expected a whole number of milliseconds from 0 to %3</source>
        <translation>%1“%2”无效：应为 0 到 %3 之间的整数毫秒</translation>
    </message>
</context>
<context>
    <name>lantern::SplitPreviewModel</name>
    <message>
        <source>From</source>
        <translation>金额下限</translation>
    </message>
    <message>
        <source>To</source>
        <translation>金额上限</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>红包数</translation>
    </message>
</context>
<context>
    <name>lantern::SqlConnection</name>
    <message>
        <source>cannot open database %1: %2</source>
        <translation>无法打开数据库 %1：%2</translation>
    </message>
    <message>
        <source>%1 failed on %2: %3</source>
        <translation>%1 失败（%2）：%3</translation>
    </message>
    <message>
        <source>preparing &apos;%1&apos;</source>
        <translation>准备语句“%1”</translation>
    </message>
    <message>
        <source>running &apos;%1&apos;</source>
        <translation>执行语句“%1”</translation>
    </message>
    <message>
        <source>read-only connection (setting read-only): &apos;%1&apos; was not run on %2; only SELECT statements are allowed</source>
        <translation>只读连接（设置项 read-only）：“%1”没有在 %2 上执行；只允许 SELECT 语句</translation>
    </message>
    <message>
        <source>cannot open database %1: the account requires TLS (REQUIRE SSL): give the server&apos;s CA with --db-ca FILE (and --db-cert, --db-key for an account that requires a certificate)</source>
        <translation>无法打开数据库 %1：该账号要求 TLS（REQUIRE SSL）：请用 --db-ca FILE 提供服务器的 CA（账号要求证书时还需 --db-cert、--db-key）</translation>
    </message>
</context>
<context>
    <name>lantern::SshSession</name>
    <message>
        <source>cannot start an SSH session (out of memory)</source>
        <translation>无法启动 SSH 会话（内存不足）</translation>
    </message>
    <message>
        <source>is unreachable</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>SSH server %1 %2: %3</source>
        <translation>SSH 服务器 %1 %2：%3</translation>
    </message>
    <message>
        <source>cannot be used</source>
        <translation>无法使用</translation>
    </message>
    <message>
        <source>sent no host key</source>
        <translation>未发送主机密钥</translation>
    </message>
    <message>
        <source>sent a host key that cannot be read</source>
        <translation>发送的主机密钥无法读取</translation>
    </message>
    <message>
        <source>SSH server %1 presented the host key %2, not the one %3 holds for it: someone may be impersonating it (or it was re-installed). Refused; if its administrator confirms the new key, remove the old line from %3.</source>
        <translation>SSH 服务器 %1 出示的主机密钥为 %2，与 %3 中记录的不同：可能有人在冒充它（或服务器已重装）。已拒绝；如果管理员确认了新密钥，请从 %3 中删除旧的那一行。</translation>
    </message>
    <message>
        <source>SSH server %1 presented a host key of another type than the one %2 holds for it (%3): refused, as for a changed key.</source>
        <translation>SSH 服务器 %1 出示的主机密钥类型与 %2 中记录的不同（%3）：与密钥变更一样，已拒绝。</translation>
    </message>
    <message>
        <source>was accepted, but its host key could not be written to %1</source>
        <translation>已被信任，但其主机密钥无法写入 %1</translation>
    </message>
    <message>
        <source>SSH server %1 is not known yet: its host key&apos;s fingerprint is %2. Compare it with the one its administrator gives you before you trust it.</source>
        <translation>SSH 服务器 %1 尚未被信任：其主机密钥指纹为 %2。信任之前，请与管理员提供的指纹核对。</translation>
    </message>
    <message>
        <source>could not be checked against %1</source>
        <translation>无法与 %1 核对</translation>
    </message>
    <message>
        <source>SSH server %1: no SSH agent runs for this session (SSH_AUTH_SOCK is not set); start ssh-agent and ssh-add your key, or choose the key file</source>
        <translation>SSH 服务器 %1：本会话没有运行 SSH agent（未设置 SSH_AUTH_SOCK）；请启动 ssh-agent 并用 ssh-add 添加密钥，或改选密钥文件</translation>
    </message>
    <message>
        <source>cannot read the SSH key %1: the file is missing or not a private key, or the passphrase is wrong</source>
        <translation>无法读取 SSH 密钥 %1：文件不存在或不是私钥，或口令错误</translation>
    </message>
    <message>
        <source>failed during the login</source>
        <translation>登录过程中失败</translation>
    </message>
    <message>
        <source>the agent&apos;s keys</source>
        <translation>SSH agent 中的密钥</translation>
    </message>
    <message>
        <source>the key %1</source>
        <translation>密钥 %1</translation>
    </message>
    <message>
        <source>the password</source>
        <translation>密码</translation>
    </message>
    <message>
        <source>SSH server %1 refused the login of %2 with %3</source>
        <translation>SSH 服务器 %1 拒绝了 %2 使用%3登录</translation>
    </message>
</context>
<context>
    <name>lantern::SshTunnel</name>
    <message>
        <source>cannot start the SSH tunnel: %1</source>
        <translation>无法启动 SSH 隧道：%1</translation>
    </message>
    <message>
        <source>cannot open a local port for %1 through the SSH tunnel: %2</source>
        <translation>无法为经由 SSH 隧道访问 %1 打开本地端口：%2</translation>
    </message>
    <message>
        <source>The SQL URL names a Unix socket, which an SSH tunnel cannot reach: give the database&apos;s host and port as the SSH server reaches them.</source>
        <translation>SQL URL 指定的是 Unix 套接字，SSH 隧道无法到达：请填写 SSH 服务器所能访问的数据库主机和端口。</translation>
    </message>
</context>
<context>
    <name>lantern::TimetableModel</name>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 天 %2 小时</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>in %1</source>
        <translation>%1 后</translation>
    </message>
    <message>
        <source>overdue by %1</source>
        <extracomment>A scheduled transition whose time has passed and that no worker has made yet.</extracomment>
        <translation>已逾期 %1</translation>
    </message>
    <message>
        <source>%1 s late</source>
        <extracomment>How long after its time a scheduled transition was made.</extracomment>
        <translation>晚了 %1 秒</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>待执行</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>已执行</translation>
    </message>
    <message>
        <source>Done (%1)</source>
        <translation>已执行（%1）</translation>
    </message>
    <message>
        <source>Missed: %1</source>
        <extracomment>%1: why it was not made, as the worker recorded it.</extracomment>
        <translation>未执行：%1</translation>
    </message>
    <message>
        <source>Its envelopes are in SQL and its pool in Redis: going live is one status change.</source>
        <translation>红包已写入 SQL，红包池已载入 Redis：上线只需一次状态变更。</translation>
    </message>
    <message>
        <source>Not prepared yet: a worker prepares a launch in the 15 minutes before its time.</source>
        <translation>尚未准备：工作进程会在上线时间前 15 分钟内完成准备。</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>上线</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>结束</translation>
    </message>
    <message>
        <source>not yet</source>
        <translation>尚未</translation>
    </message>
    <message>
        <source>Campaign</source>
        <translation>活动</translation>
    </message>
    <message>
        <source>Transition</source>
        <translation>变更</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Countdown</source>
        <translation>倒计时</translation>
    </message>
    <message>
        <source>Prepared</source>
        <translation>已准备</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Scheduled by</source>
        <translation>安排人</translation>
    </message>
    <message>
        <source>Above the four-eyes bound: a manager other than its creator must approve it before its time, or the launch is missed.</source>
        <translation>超过双人审批额度：须由创建者以外的另一位经理在上线时间前审批，否则本次上线将被错过。</translation>
    </message>
    <message>
        <source>Approved by %1.</source>
        <translation>已由 %1 审批。</translation>
    </message>
    <message>
        <source>awaiting</source>
        <extracomment>The four-eyes approval of a scheduled launch: approved (by whom) or still awaited.</extracomment>
        <translation>待审批</translation>
    </message>
    <message>
        <source>Approved</source>
        <translation>审批</translation>
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
        <source>This month&apos;s quota of %n make-up(s) is used up.</source>
        <translation>
            <numerusform>本月 %n 次补签额度已用完。</numerusform>
        </translation>
    </message>
    <message>
        <source>This make-up cannot be granted.</source>
        <translation>无法进行这次补签。</translation>
    </message>
    <message>
        <source>This connection is read-only: make-ups cannot be granted here.</source>
        <translation>当前连接为只读：无法在这里补签。</translation>
    </message>
</context>
<context>
    <name>lantern::UserTokens</name>
    <message>
        <source>no token secret configured: set LANTERN_TOKEN_SECRET or --token-secret</source>
        <translation>未配置令牌密钥：请设置 LANTERN_TOKEN_SECRET 或 --token-secret</translation>
    </message>
</context>
<context>
    <name>lantern::WorkerHeartbeat</name>
    <message>
        <source>invalid LANTERN_HEARTBEAT_TTL_S &apos;%1&apos;: expected 1 to 3600 seconds</source>
        <translation>LANTERN_HEARTBEAT_TTL_S“%1”无效：应为 1 到 3600 秒</translation>
    </message>
</context>
<context>
    <name>lantern::WorkerShift</name>
    <message>
        <source>Redis lost grabs of campaign %1 that the ledger holds; rebuilt its Redis state from SQL</source>
        <translation>Redis 丢失了活动 %1 中账本已记录的抢红包；已依据 SQL 重建其 Redis 状态</translation>
    </message>
    <message>
        <source>%1; retrying in %2 ms</source>
        <translation>%1；%2 毫秒后重试</translation>
    </message>
</context>
<context>
    <name>lantern::access::AccountIdentity</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>the account %1 may not %2</source>
        <translation>账号 %1 无权%2</translation>
    </message>
</context>
<context>
    <name>lantern::access::AccountName</name>
    <message>
        <source>invalid account name &apos;%1&apos;: a lowercase letter, then up to %2 of a-z 0-9 _</source>
        <translation>无效的账号名 &apos;%1&apos;：须以小写字母开头，其后最多 %2 个 a-z 0-9 _ 字符</translation>
    </message>
    <message>
        <source>unusable password: 12 to 128 printable ASCII characters, no spaces, quotes, backslashes or backticks</source>
        <translation>密码不可用：须为 12 到 128 个可打印 ASCII 字符，不含空格、引号、反斜杠或反引号</translation>
    </message>
</context>
<context>
    <name>lantern::access::RedisAccounts</name>
    <message>
        <source>SCRIPT LOAD on %1: %2</source>
        <translation>%1 上的 SCRIPT LOAD：%2</translation>
    </message>
    <message>
        <source>cannot reach the Redis node %1, so no account was changed anywhere: %2%3</source>
        <translation>无法连接 Redis 节点 %1，因此任何地方的账号都未被更改：%2%3</translation>
    </message>
    <message>
        <source> (a replica the sentinels still list after it is gone for good is forgotten with SENTINEL RESET %1)</source>
        <translation>（已永久移除但哨兵仍列出的副本，可用 SENTINEL RESET %1 让哨兵忘记它）</translation>
    </message>
    <message>
        <source>%1 failed on %2: %3. Written on: %4; not on: %5</source>
        <translation>%1 在 %2 上失败：%3。已写入：%4；未写入：%5</translation>
    </message>
    <message>
        <source>no node</source>
        <translation>无节点</translation>
    </message>
</context>
<context>
    <name>lantern::access::Roles</name>
    <message>
        <source>run this command</source>
        <translation>运行此命令</translation>
    </message>
    <message>
        <source>read Lantern&apos;s data</source>
        <translation>读取 Lantern 的数据</translation>
    </message>
    <message>
        <source>check users in</source>
        <translation>为用户签到</translation>
    </message>
    <message>
        <source>grab envelopes</source>
        <translation>抢红包</translation>
    </message>
    <message>
        <source>grant make-up check-ins</source>
        <translation>发放补签</translation>
    </message>
    <message>
        <source>create campaigns</source>
        <translation>创建活动</translation>
    </message>
    <message>
        <source>approve campaigns</source>
        <translation>批准活动</translation>
    </message>
    <message>
        <source>launch campaigns</source>
        <translation>上线活动</translation>
    </message>
    <message>
        <source>pause campaigns</source>
        <translation>暂停活动</translation>
    </message>
    <message>
        <source>resume campaigns</source>
        <translation>恢复活动</translation>
    </message>
    <message>
        <source>close campaigns</source>
        <translation>关闭活动</translation>
    </message>
    <message>
        <source>schedule campaigns</source>
        <translation>为活动排期</translation>
    </message>
    <message>
        <source>repair campaigns</source>
        <translation>修复活动</translation>
    </message>
    <message>
        <source>recover workers&apos; tasks</source>
        <translation>恢复 worker 的任务</translation>
    </message>
    <message>
        <source>handle dead letters</source>
        <translation>处理死信</translation>
    </message>
    <message>
        <source>reconcile check-ins</source>
        <translation>对账签到</translation>
    </message>
    <message>
        <source>turn API features on or off</source>
        <translation>开关 API 功能</translation>
    </message>
    <message>
        <source>run workers</source>
        <translation>运行 worker</translation>
    </message>
    <message>
        <source>serve the API</source>
        <translation>提供 API 服务</translation>
    </message>
    <message>
        <source>migrate the schema</source>
        <translation>迁移数据库结构</translation>
    </message>
    <message>
        <source>manage accounts</source>
        <translation>管理账号</translation>
    </message>
</context>
<context>
    <name>lantern::access::SqlAccounts</name>
    <message>
        <source>accounts and roles need MariaDB or MySQL: SQLite has no accounts (docs/security.md)</source>
        <translation>账号和角色需要 MariaDB 或 MySQL：SQLite 没有账号（见 docs/security.md）</translation>
    </message>
    <message>
        <source>database name &apos;%1&apos; cannot be granted on: use A-Z a-z 0-9 _</source>
        <translation>无法对数据库名 &apos;%1&apos; 授权：请只用 A-Z a-z 0-9 _</translation>
    </message>
    <message>
        <source>the server has anonymous accounts (user &apos;&apos;): with one, a client can pick the name the audit records; drop them first (DROP USER &apos;&apos;@&apos;localhost&apos;, ...)</source>
        <translation>服务器上有匿名账号（用户名为 &apos;&apos;）：有了它，客户端可以自选审计记录的名字；请先删除（DROP USER &apos;&apos;@&apos;localhost&apos;, ...）</translation>
    </message>
    <message>
        <source>the account %1 exists already (operator set-role or rotate change it)</source>
        <translation>账号 %1 已存在（可用 operator set-role 或 rotate 修改）</translation>
    </message>
    <message>
        <source>there is no operator account %1</source>
        <translation>没有操作员账号 %1</translation>
    </message>
</context>
<context>
    <name>lantern::cli::Campaign</name>
    <message>
        <source>unknown --algorithm &apos;%1&apos;: expected double-mean, smoothed or uniform-cuts</source>
        <translation>未知的 --algorithm“%1”：应为 double-mean、smoothed 或 uniform-cuts</translation>
    </message>
    <message>
        <source>invalid --operator: expected 1 to %1 characters, no control characters, valid UTF-8</source>
        <translation>--operator 无效：应为 1 到 %1 个字符，不含控制字符，且为有效的 UTF-8</translation>
    </message>
    <message>
        <source>a transition is due at %1 and no worker is alive to make it: start lanternd work</source>
        <translation>有一项状态变更预定于 %1 执行，但没有存活的工作进程来执行它：请启动 lanternd work</translation>
    </message>
    <message>
        <source>--operator %1: this account&apos;s actions are recorded as %2 (--operator is for shared accounts)</source>
        <translation>--operator %1：此账号的操作记录为 %2（--operator 仅用于共用账号）</translation>
    </message>
</context>
<context>
    <name>lantern::cli::CommandContext</name>
    <message>
        <source>give --uid or --token, not both</source>
        <translation>--uid 和 --token 只能指定其中一个</translation>
    </message>
    <message>
        <source>missing --uid (or --token)</source>
        <translation>缺少 --uid（或 --token）</translation>
    </message>
    <message>
        <source>invalid user token &apos;%1&apos;</source>
        <translation>用户令牌“%1”无效</translation>
    </message>
</context>
<context>
    <name>lantern::cli::CommandLine</name>
    <message>
        <source>missing --%1</source>
        <translation>缺少 --%1</translation>
    </message>
    <message>
        <source>unknown option &apos;%1&apos;</source>
        <translation>未知选项“%1”</translation>
    </message>
    <message>
        <source>--%1 takes no value</source>
        <translation>--%1 不带取值</translation>
    </message>
    <message>
        <source>--%1 needs a value</source>
        <translation>--%1 需要一个取值</translation>
    </message>
    <message>
        <source>--%1 given twice</source>
        <translation>--%1 指定了两次</translation>
    </message>
    <message>
        <source>unknown option --%1 for &apos;%2&apos;</source>
        <translation>“%2”不支持选项 --%1</translation>
    </message>
    <message>
        <source>--%1 does not apply to &apos;%2&apos;</source>
        <translation>--%1 不适用于“%2”</translation>
    </message>
    <message>
        <source>invalid --%1 &apos;%2&apos;: expected a whole number from %3 to %4</source>
        <translation>--%1“%2”无效：应为 %3 到 %4 之间的整数</translation>
    </message>
</context>
<context>
    <name>lantern::cli::CommandReference</name>
    <message>
        <source>Brings the SQL schema up to date and prints its version; running it again changes nothing.</source>
        <translation>将 SQL 模式升级到最新并输出其版本；再次运行不会做任何更改。</translation>
    </message>
    <message>
        <source>Checks the user in for today (or --date) and prints the streak, the month&apos;s count and the points granted.</source>
        <translation>为用户签到今天（或 --date 指定的日期），并输出连续天数、本月次数和发放的积分。</translation>
    </message>
    <message>
        <source>Grants a make-up check-in for a past day inside the make-up window and quota, audited with the reason.</source>
        <translation>在补签窗口和配额内为过去的某天补签，并连同原因记入审计。</translation>
    </message>
    <message>
        <source>Prints the user&apos;s signed and made-up days of a month, the streaks and the points balance.</source>
        <translation>输出用户某月的签到日和补签日、连续天数以及积分余额。</translation>
    </message>
    <message>
        <source>Compares a day&apos;s check-ins in Redis with SQL and writes the missing rows.</source>
        <translation>比较 Redis 与 SQL 中某天的签到，并补写缺失的记录。</translation>
    </message>
    <message>
        <source>Prints the check-in figures of a month, day by day.</source>
        <translation>按天输出某月的签到统计。</translation>
    </message>
    <message>
        <source>Moves check-in keys of the old Redis layout to the packed one; --dry-run only counts them.</source>
        <translation>把旧 Redis 布局的签到键迁移到紧凑布局；--dry-run 只统计数量。</translation>
    </message>
    <message>
        <source>Runs a worker: persists check-ins and envelope grabs and pays envelopes; --once drains every queue and exits.</source>
        <translation>运行工作进程：持久化签到与红包领取并发放红包；--once 处理完所有队列后退出。</translation>
    </message>
    <message>
        <source>Prints the queues&apos; depth and oldest task, the workers&apos; heartbeats and the dead-letter list.</source>
        <translation>输出各队列的长度和最旧任务、工作进程的心跳以及死信列表。</translation>
    </message>
    <message>
        <source>Takes back the tasks of workers whose heartbeat expired (or of --worker W) and completes or requeues them.</source>
        <translation>收回心跳已过期的工作进程（或 --worker W 指定的进程）的任务，并完成或重新排队。</translation>
    </message>
    <message>
        <source>Prints the user&apos;s public token and a signed bearer for the HTTP API.</source>
        <translation>输出用户的公开令牌以及用于 HTTP API 的签名 bearer。</translation>
    </message>
    <message>
        <source>Writes the envelopes to SQL and the pool to Redis and opens the campaign; it can be repeated after a crash.</source>
        <translation>把红包写入 SQL、把红包池写入 Redis 并开启活动；崩溃后可以重复执行。</translation>
    </message>
    <message>
        <source>Stops grabs (the kill switch).</source>
        <translation>停止领取（紧急开关）。</translation>
    </message>
    <message>
        <source>Lets a paused campaign&apos;s grabs go on.</source>
        <translation>让已暂停活动的领取继续进行。</translation>
    </message>
    <message>
        <source>Closes the campaign and refunds the envelopes nobody grabbed.</source>
        <translation>关闭活动并退回无人领取的红包。</translation>
    </message>
    <message>
        <source>Prints the campaign&apos;s status and figures: grabbed, persisted, paid and refunded.</source>
        <translation>输出活动的状态和数据：已领取、已持久化、已发放和已退回。</translation>
    </message>
    <message>
        <source>Puts a campaign&apos;s Redis state back in line with the SQL ledger after Redis lost data.</source>
        <translation>在 Redis 丢失数据后，使活动的 Redis 状态与 SQL 账本重新一致。</translation>
    </message>
    <message>
        <source>Grabs an envelope of a live campaign for the user and prints the outcome.</source>
        <translation>为用户领取进行中活动的一个红包并输出结果。</translation>
    </message>
    <message>
        <source>Checks the invariants of the envelope ledger and prints any violation.</source>
        <translation>检查红包账本的不变式并输出所有违反之处。</translation>
    </message>
    <message>
        <source>Runs the client HTTP API (check-in, calendar, grabs); needs --token-secret to check bearers.</source>
        <translation>运行客户端 HTTP API（签到、日历、领取）；需要 --token-secret 来校验 bearer。</translation>
    </message>
    <message>
        <source>Turns a feature of the HTTP API on or off for every server.</source>
        <translation>为所有服务器打开或关闭 HTTP API 的某项功能。</translation>
    </message>
    <message>
        <source>SQL: mysql://user:password@host:port/name[?unix_socket=PATH] or sqlite:///absolute/path.db.</source>
        <translation>SQL：mysql://user:password@host:port/name[?unix_socket=PATH] 或 sqlite:///absolute/path.db。</translation>
    </message>
    <message>
        <source>Treats this day as today in every rule.</source>
        <translation>在所有规则中把这一天当作今天。</translation>
    </message>
    <message>
        <source>Time zone of the business day (an IANA name such as Asia/Shanghai).</source>
        <translation>业务日所用的时区（IANA 名称，例如 Asia/Shanghai）。</translation>
    </message>
    <message>
        <source>Prefix of every Redis key (default lt:).</source>
        <translation>所有 Redis 键的前缀（默认 lt:）。</translation>
    </message>
    <message>
        <source>Number of check-in key shards (default 16).</source>
        <translation>签到键的分片数（默认 16）。</translation>
    </message>
    <message>
        <source>Whether streaks restart on the 1st (monthly, the default) or cross months.</source>
        <translation>连续签到是在每月 1 日重新计算（monthly，默认），还是跨月累计。</translation>
    </message>
    <message>
        <source>Points for day 1, 2, ... of a streak; the last entry repeats.</source>
        <translation>连续签到第 1、2……天的积分；最后一项重复使用。</translation>
    </message>
    <message>
        <source>Make-up window in days (0, the default: the past days of the current month).</source>
        <translation>补签窗口天数（默认 0：本月已过去的日子）。</translation>
    </message>
    <message>
        <source>Make-ups allowed per month (default 3).</source>
        <translation>每月允许的补签次数（默认 3）。</translation>
    </message>
    <message>
        <source>Whether a make-up grants points (default false).</source>
        <translation>补签是否发放积分（默认 false）。</translation>
    </message>
    <message>
        <source>Salt of the public user tokens.</source>
        <translation>公开用户令牌的盐值。</translation>
    </message>
    <message>
        <source>Secret that signs the API bearers; serve needs it.</source>
        <translation>为 API bearer 签名的密钥；serve 需要它。</translation>
    </message>
    <message>
        <source>HTTP API limit of check-ins: R requests per second, burst B (0: unlimited, the default).</source>
        <translation>HTTP API 的签到限流：每秒 R 个请求，突发 B（0：不限，默认）。</translation>
    </message>
    <message>
        <source>HTTP API limit of calendar reads, as --rate-checkin.</source>
        <translation>HTTP API 的日历读取限流，格式同 --rate-checkin。</translation>
    </message>
    <message>
        <source>HTTP API limit of grabs, as --rate-checkin.</source>
        <translation>HTTP API 的领取限流，格式同 --rate-checkin。</translation>
    </message>
    <message>
        <source>HTTP API limit of campaign reads, as --rate-checkin.</source>
        <translation>HTTP API 的活动读取限流，格式同 --rate-checkin。</translation>
    </message>
    <message>
        <source>Refuses every write, in Redis and in SQL.</source>
        <translation>拒绝所有写入，包括 Redis 和 SQL。</translation>
    </message>
    <message>
        <source>After each grab, waits until N replicas have it or MS milliseconds pass.</source>
        <translation>每次领取后，等待 N 个副本收到写入或经过 MS 毫秒。</translation>
    </message>
    <message>
        <source>Reads settings from the named connection profile.</source>
        <translation>从命名的连接配置读取设置。</translation>
    </message>
    <message>
        <source>Reads settings from this profile file.</source>
        <translation>从这个配置文件读取设置。</translation>
    </message>
    <message>
        <source>Language of the messages and of --help (default: the system locale).</source>
        <translation>消息和 --help 的语言（默认：系统区域设置）。</translation>
    </message>
    <message>
        <source>Every global option but --lang, --profile and --config as LANTERN_ and its name in upper case with _ for -. An option on the command line wins over its variable, a variable over the profile.</source>
        <translation>除 --lang、--profile 和 --config 外，每个全局选项都可写作 LANTERN_ 加上其名称（大写，- 换成 _）。命令行选项优先于对应变量，变量优先于配置文件。</translation>
    </message>
    <message>
        <source>The profile file, or the named profile, to read settings from.</source>
        <translation>从中读取设置的配置文件或命名配置。</translation>
    </message>
    <message>
        <source>Set by systemd (LoadCredential=): a file there named after a setting (redis, db, token-secret, ...) holds its value, which wins over the variable and the profile.</source>
        <translation>由 systemd 设置（LoadCredential=）：其中以设置名命名的文件（redis、db、token-secret 等）保存该设置的值，优先于环境变量和配置文件。</translation>
    </message>
    <message>
        <source>File that work appends the tasks that keep failing to (default ~/.local/share/lantern/errors.log).</source>
        <translation>work 把反复失败的任务追加到的文件（默认 ~/.local/share/lantern/errors.log）。</translation>
    </message>
    <message>
        <source>Seconds after its last heartbeat that a worker counts as dead (default 15).</source>
        <translation>工作进程最后一次心跳后多少秒视为已死（默认 15）。</translation>
    </message>
    <message>
        <source>http:// or https:// endpoint of the payout provider; unset: the simulated provider.</source>
        <translation>支付服务商的 http:// 或 https:// 地址；未设置时使用模拟服务商。</translation>
    </message>
    <message>
        <source>How long one call to the payout provider may take (default 3000).</source>
        <translation>一次调用支付服务商允许的最长时间（毫秒，默认 3000）。</translation>
    </message>
    <message>
        <source>Keep-alive connections a worker opens to the payout provider (default: --in-flight).</source>
        <translation>工作进程与支付服务商保持的长连接数（默认：--in-flight）。</translation>
    </message>
    <message>
        <source>Calls per second to the payout provider, all workers together (default: no limit).</source>
        <translation>所有工作进程合计每秒调用支付服务商的次数（默认：不限）。</translation>
    </message>
    <message>
        <source>The simulated provider: the share of calls that fail (0 to 1) and the delay of each call in milliseconds.</source>
        <translation>模拟服务商：调用失败的比例（0 到 1）以及每次调用的延迟（毫秒）。</translation>
    </message>
    <message>
        <source>Done, including business outcomes such as already signed or sold out.</source>
        <translation>完成，包括已签到、已抢完等业务结果。</translation>
    </message>
    <message>
        <source>Anything else.</source>
        <translation>其他任何错误。</translation>
    </message>
    <message>
        <source>Invalid input: the message is on stderr and nothing was written.</source>
        <translation>输入无效：错误信息输出到 stderr，没有写入任何内容。</translation>
    </message>
    <message>
        <source>Redis or SQL unreachable or not ready; nothing was half-written.</source>
        <translation>Redis 或 SQL 无法连接或尚未就绪；没有写入一半的内容。</translation>
    </message>
    <message>
        <source>Refused by a business rule, such as a make-up outside the window.</source>
        <translation>被业务规则拒绝，例如补签超出窗口。</translation>
    </message>
    <message>
        <source>usage: lanternd COMMAND [options]</source>
        <translation>用法：lanternd 命令 [选项]</translation>
    </message>
    <message>
        <source>commands:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <source>global options (anywhere on the line):</source>
        <translation>全局选项（可出现在命令行任意位置）：</translation>
    </message>
    <message>
        <source>environment:</source>
        <translation>环境变量：</translation>
    </message>
    <message>
        <source>exit status:</source>
        <translation>退出状态：</translation>
    </message>
    <message>
        <source>The manual page lanternd(1) says the same at more length.</source>
        <translation>手册页 lanternd(1) 有更详细的说明。</translation>
    </message>
    <message>
        <source>check-in and red-envelope campaigns on Redis and SQL: JSON command line, workers and HTTP API</source>
        <translation>基于 Redis 和 SQL 的签到与红包活动：JSON 命令行、工作进程和 HTTP API</translation>
    </message>
    <message>
        <source>lanternd is the headless side of Lantern. Each command prints one JSON object on one line on stdout; messages go to stderr, in the language of --lang or the system locale. JSON is never translated.</source>
        <translation>lanternd 是 Lantern 的无界面部分。每个命令在 stdout 上用一行输出一个 JSON 对象；消息输出到 stderr，语言取自 --lang 或系统区域设置。JSON 从不翻译。</translation>
    </message>
    <message>
        <source>Global options may come before or after the command; --name value and --name=value both work. --help prints this summary and --help-man this page as roff.</source>
        <translation>全局选项可以写在命令之前或之后；--name value 和 --name=value 两种写法均可。--help 输出本摘要，--help-man 以 roff 格式输出本手册页。</translation>
    </message>
    <message>
        <source>Commands</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Global options</source>
        <translation>全局选项</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>Exit status</source>
        <translation>退出状态</translation>
    </message>
    <message>
        <source>See also</source>
        <translation>另请参阅</translation>
    </message>
    <message>
        <source>lantern(1), systemd.exec(5); the units lanternd-work.service and lanternd-serve.service.</source>
        <translation>lantern(1)、systemd.exec(5)；单元 lanternd-work.service 和 lanternd-serve.service。</translation>
    </message>
    <message>
        <source>Creates a draft envelope campaign: the total in cents split into C envelopes by the algorithm; with --launch-at (and --close-at) the workers launch (and close) it at those times.</source>
        <translation>创建一个红包活动草稿：按所选算法把以分为单位的总金额拆成 C 个红包；指定 --launch-at（以及 --close-at）时，工作进程会在这些时间上线（以及结束）它。</translation>
    </message>
    <message>
        <source>Sets, changes or clears (--clear) when the workers launch and close a campaign: T is ISO 8601 with an offset (2026-12-31T20:00:00+08:00) or local time in --tz; --late-limit S skips a transition more than S seconds late.</source>
        <translation>设置、修改或清除（--clear）工作进程上线和结束活动的时间：T 为带时区偏移的 ISO 8601 时间（2026-12-31T20:00:00+08:00）或 --tz 时区的本地时间；--late-limit S 表示延迟超过 S 秒的切换将被跳过。</translation>
    </message>
    <message>
        <source>Lists the campaigns, newest first; --scheduled the timetable: each launch and close, prepared, made or missed.</source>
        <translation>列出活动，最新的在前；--scheduled 列出时间表：每次上线和结束，是否已准备、已执行或已错过。</translation>
    </message>
    <message>
        <source>Redis: redis://[user:password@]host:port[/db] (rediss:// over TLS), any node (or a list of nodes) of a Redis Cluster, or the sentinels of a master: redis-sentinel://[user:password@]host:port,host:port#MASTER.</source>
        <translation>Redis：redis://[user:password@]host:port[/db]（TLS 用 rediss://），Redis 集群的任一节点（或节点列表），或某个主节点的哨兵：redis-sentinel://[user:password@]host:port,host:port#MASTER。</translation>
    </message>
    <message>
        <source>TLS to Redis: the CA certificates that sign the servers&apos; (default: the system&apos;s).</source>
        <translation>Redis 的 TLS：签发服务器证书的 CA 证书（默认：系统自带）。</translation>
    </message>
    <message>
        <source>TLS to Redis: this client&apos;s certificate, for mutual TLS.</source>
        <translation>Redis 的 TLS：本客户端的证书，用于双向 TLS。</translation>
    </message>
    <message>
        <source>TLS to Redis: the private key of --redis-cert.</source>
        <translation>Redis 的 TLS：--redis-cert 的私钥。</translation>
    </message>
    <message>
        <source>TLS to Redis: the server name sent and checked (default: the URL&apos;s host).</source>
        <translation>Redis 的 TLS：发送并校验的服务器名（默认：URL 中的主机）。</translation>
    </message>
    <message>
        <source>TLS to Redis: full (the default) checks the chain and the host name or IP, ca the chain only, none nothing (said on stderr).</source>
        <translation>Redis 的 TLS：full（默认）校验证书链和主机名或 IP，ca 只校验证书链，none 什么都不校验（会在 stderr 提示）。</translation>
    </message>
    <message>
        <source>Redis Sentinel: the sentinels&apos; own user (the URL&apos;s credentials are the data nodes&apos;).</source>
        <translation>Redis Sentinel：哨兵自己的用户（URL 中的凭据属于数据节点）。</translation>
    </message>
    <message>
        <source>Redis Sentinel: the sentinels&apos; own password.</source>
        <translation>Redis Sentinel：哨兵自己的密码。</translation>
    </message>
    <message>
        <source>TLS to MySQL/MariaDB: the CA certificates that sign the server&apos;s (the chain is checked, not the host name).</source>
        <translation>MySQL/MariaDB 的 TLS：签发服务器证书的 CA 证书（只校验证书链，不校验主机名）。</translation>
    </message>
    <message>
        <source>TLS to MySQL/MariaDB: this client&apos;s certificate.</source>
        <translation>MySQL/MariaDB 的 TLS：本客户端的证书。</translation>
    </message>
    <message>
        <source>TLS to MySQL/MariaDB: the private key of --db-cert.</source>
        <translation>MySQL/MariaDB 的 TLS：--db-cert 的私钥。</translation>
    </message>
    <message>
        <source>Approves a draft above the four-eyes bound (access install --approval-cents); only a manager other than its creator can, and only then does it launch.</source>
        <translation>批准超过双人复核金额（access install --approval-cents）的草稿；只有创建者以外的经理可以批准，批准后才能上线。</translation>
    </message>
    <message>
        <source>With administrative accounts: creates the roles on MariaDB with their grants, records the four-eyes bound (default LANTERN_APPROVAL_CENTS or 1000000) and loads Lantern&apos;s Lua scripts; running it again changes nothing.</source>
        <translation>使用管理账号：在 MariaDB 上创建各角色及其权限，记录双人复核金额（默认为 LANTERN_APPROVAL_CENTS 或 1000000），并加载 Lantern 的 Lua 脚本；再次运行不会改变任何东西。</translation>
    </message>
    <message>
        <source>Creates an account on MariaDB with that default role and the Redis ACL user on every node; without --password-file a generated password is printed, once.</source>
        <translation>在 MariaDB 上创建以该角色为默认角色的账号，并在每个 Redis 节点上创建 ACL 用户；不给 --password-file 时会生成密码并只打印一次。</translation>
    </message>
    <message>
        <source>Lists the accounts that hold one of Lantern&apos;s roles.</source>
        <translation>列出拥有 Lantern 角色的账号。</translation>
    </message>
    <message>
        <source>Drops the account on MariaDB and on every Redis node.</source>
        <translation>在 MariaDB 和每个 Redis 节点上删除该账号。</translation>
    </message>
    <message>
        <source>Gives the account a new password on MariaDB and on every Redis node.</source>
        <translation>在 MariaDB 和每个 Redis 节点上为该账号设置新密码。</translation>
    </message>
    <message>
        <source>Changes the account&apos;s role; its Redis user gets the new rules and a new password.</source>
        <translation>更改账号的角色；其 Redis 用户获得新规则和新密码。</translation>
    </message>
    <message>
        <source>Not permitted for this account: {&quot;error&quot;:&quot;forbidden&quot;} on stdout and nothing was written.</source>
        <translation>此账号无权执行：stdout 输出 {&quot;error&quot;:&quot;forbidden&quot;}，且未写入任何内容。</translation>
    </message>
</context>
<context>
    <name>lantern::cli::Commands</name>
    <message>
        <source>cannot reconcile %1: it is after today</source>
        <translation>不能对账 %1：该日期晚于今天</translation>
    </message>
    <message>
        <source>invalid --ttl-s: expected 1 to 31622400 seconds</source>
        <translation>--ttl-s 无效：应为 1 到 31622400 秒</translation>
    </message>
    <message>
        <source>serve needs a token secret to check bearers: --token-secret or LANTERN_TOKEN_SECRET</source>
        <translation>serve 需要令牌密钥来校验 Bearer 令牌：请设置 --token-secret 或 LANTERN_TOKEN_SECRET</translation>
    </message>
    <message>
        <source>invalid --state &apos;%1&apos;: expected on or off</source>
        <translation>--state“%1”无效：应为 on 或 off</translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <source>invalid --%1: expected %2 to %3</source>
        <translation>--%1 无效：应为 %2 到 %3</translation>
    </message>
    <message>
        <source>migrate-redis: %1 user-months found, %2 moved; %3 day sets found, %4 removed
</source>
        <translation>migrate-redis：找到 %1 个用户月，已迁移 %2 个；找到 %3 个按日集合，已删除 %4 个
</translation>
    </message>
</context>
<context>
    <name>lantern::cli::Main</name>
    <message>
        <source>unknown command &apos;%1&apos; (see lanternd --help)</source>
        <translation>未知命令“%1”（参见 lanternd --help）</translation>
    </message>
    <message>
        <source>%1; try again in a moment</source>
        <translation>%1；请稍后重试</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AlertBar</name>
    <message>
        <source>⚠ %1 &lt;a href=&quot;view:%2&quot;&gt;Open %3&lt;/a&gt;</source>
        <extracomment>An alert of the console, then a link to the view that shows it (&quot;Open Queues&quot;).</extracomment>
        <translation>⚠ %1 &lt;a href=&quot;view:%2&quot;&gt;打开%3&lt;/a&gt;</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AlertCenter</name>
    <message>
        <source>Lantern console</source>
        <translation>Lantern 控制台</translation>
    </message>
    <message>
        <source>Lantern alert</source>
        <translation>Lantern 告警</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AlertThresholdsDialog</name>
    <message>
        <source>Dead letters appeared</source>
        <translation>出现死信</translation>
    </message>
    <message>
        <source>A worker stopped beating</source>
        <translation>工作进程停止心跳</translation>
    </message>
    <message>
        <source>The ledger does not balance for a campaign</source>
        <translation>某个活动的账本不平衡</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>告警</translation>
    </message>
    <message>
        <source>When the console alerts for the servers in use:</source>
        <translation>控制台对当前服务器发出告警的条件：</translation>
    </message>
    <message>
        <source>When the console alerts for the profile “%1”:</source>
        <translation>控制台对配置“%1”发出告警的条件：</translation>
    </message>
    <message>
        <source> entries</source>
        <extracomment>The backlog alert: more than this many entries wait in the queues.</extracomment>
        <translation> 条</translation>
    </message>
    <message>
        <source>Backlog above</source>
        <translation>积压超过</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>off</source>
        <extracomment>0 minutes turns the backlog alert off.</extracomment>
        <translation>关闭</translation>
    </message>
    <message>
        <source>and growing for</source>
        <translation>且持续增长</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AuditDetailPanel</name>
    <message>
        <source>Select a row to read what was done, by whom and why.</source>
        <translation>选择一行，查看谁做了什么操作以及原因。</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>操作人</translation>
    </message>
    <message>
        <source>Action</source>
        <extracomment>An audit entry&apos;s action: in words, then its stored name, e.g. &quot;Make-up granted (checkin.makeup)&quot;.</extracomment>
        <translation>操作</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>none recorded</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>Entry</source>
        <translation>记录编号</translation>
    </message>
</context>
<context>
    <name>lantern::ui::AuditView</name>
    <message>
        <source>Clear filters</source>
        <translation>清除筛选</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>操作人</translation>
    </message>
    <message>
        <source>Operators whose name contains this text</source>
        <translation>姓名包含此文本的操作人</translation>
    </message>
    <message>
        <source>Any action</source>
        <translation>全部操作</translation>
    </message>
    <message>
        <source>Actions that start with this text, e.g. “campaign.” for every campaign action</source>
        <translation>以此文本开头的操作，例如“campaign.”表示所有活动相关操作</translation>
    </message>
    <message>
        <source>Target, e.g. uid:10001</source>
        <translation>对象，例如 uid:10001</translation>
    </message>
    <message>
        <source>Targets that contain this text: a user (uid:10001), a campaign (campaign:3), a queue, …</source>
        <translation>包含此文本的对象：用户（uid:10001）、活动（campaign:3）、队列…</translation>
    </message>
    <message>
        <source>Any time</source>
        <translation>全部时间</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>Custom range</source>
        <translation>自定义范围</translation>
    </message>
    <message>
        <source>Business days, in the configured time zone</source>
        <translation>按业务日计算，使用配置的时区</translation>
    </message>
    <message>
        <source>First day</source>
        <translation>开始日期</translation>
    </message>
    <message>
        <source>Last day</source>
        <translation>结束日期</translation>
    </message>
    <message>
        <source>Read the shown page again (F5)</source>
        <translation>重新读取当前页（F5）</translation>
    </message>
    <message>
        <source>Waiting for the database…</source>
        <translation>正在等待数据库…</translation>
    </message>
    <message>
        <source>No audit entries match these filters.</source>
        <translation>没有符合这些筛选条件的审计记录。</translation>
    </message>
    <message>
        <source>The audit log is empty: no operator has changed anything yet.</source>
        <translation>审计日志为空：还没有操作人做过任何改动。</translation>
    </message>
    <message>
        <source>Page %1</source>
        <translation>第 %1 页</translation>
    </message>
    <message>
        <source>Audit log</source>
        <translation>审计日志</translation>
    </message>
    <message>
        <source>First page</source>
        <translation>第一页</translation>
    </message>
    <message>
        <source>‹ Previous</source>
        <translation>‹ 上一页</translation>
    </message>
    <message>
        <source>Next ›</source>
        <translation>下一页 ›</translation>
    </message>
    <message>
        <source>The first page in this order</source>
        <translation>按当前排序的第一页</translation>
    </message>
    <message>
        <source>The previous page</source>
        <translation>上一页</translation>
    </message>
    <message>
        <source>The next page</source>
        <translation>下一页</translation>
    </message>
    <message>
        <source>Page %1 · entries %2–%3, %4</source>
        <translation>第 %1 页 · 第 %2–%3 条，%4</translation>
    </message>
    <message>
        <source>by who, A to Z</source>
        <translation>按操作人，A 到 Z</translation>
    </message>
    <message>
        <source>by who, Z to A</source>
        <translation>按操作人，Z 到 A</translation>
    </message>
    <message>
        <source>by action, A to Z</source>
        <translation>按操作，A 到 Z</translation>
    </message>
    <message>
        <source>by action, Z to A</source>
        <translation>按操作，Z 到 A</translation>
    </message>
    <message>
        <source>by target, A to Z</source>
        <translation>按对象，A 到 Z</translation>
    </message>
    <message>
        <source>by target, Z to A</source>
        <translation>按对象，Z 到 A</translation>
    </message>
    <message>
        <source>oldest first</source>
        <translation>最早的在前</translation>
    </message>
    <message>
        <source>newest first</source>
        <translation>最新的在前</translation>
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
    <name>lantern::ui::CalendarPane</name>
    <message>
        <source>This month</source>
        <translation>本月</translation>
    </message>
    <message>
        <source>Previous month</source>
        <translation>上个月</translation>
    </message>
    <message>
        <source>Previous month (Ctrl+Page Up, or Page Up in the calendar)</source>
        <translation>上个月（Ctrl+Page Up，或在日历中按 Page Up）</translation>
    </message>
    <message>
        <source>Next month</source>
        <translation>下个月</translation>
    </message>
    <message>
        <source>Next month (Ctrl+Page Down, or Page Down in the calendar)</source>
        <translation>下个月（Ctrl+Page Down，或在日历中按 Page Down）</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignActionBar</name>
    <message>
        <source>New campaign…</source>
        <translation>新建活动…</translation>
    </message>
    <message>
        <source>Approve…</source>
        <translation>审批…</translation>
    </message>
    <message>
        <source>Launch…</source>
        <translation>上线…</translation>
    </message>
    <message>
        <source>Pause…</source>
        <translation>暂停…</translation>
    </message>
    <message>
        <source>Resume…</source>
        <translation>恢复…</translation>
    </message>
    <message>
        <source>Close…</source>
        <translation>结束…</translation>
    </message>
    <message>
        <source>Times…</source>
        <translation>时间…</translation>
    </message>
    <message>
        <source>Four eyes: as a second manager, let this campaign above the bound be launched</source>
        <translation>双人审批：作为第二位经理，允许这个超过额度的活动上线</translation>
    </message>
    <message>
        <source>Write the envelopes and open grabs</source>
        <translation>写入红包并开放抢红包</translation>
    </message>
    <message>
        <source>The kill switch: stop grabs at once</source>
        <translation>紧急开关：立即停止抢红包</translation>
    </message>
    <message>
        <source>Open grabs again</source>
        <translation>重新开放抢红包</translation>
    </message>
    <message>
        <source>End the campaign for good and refund what is left</source>
        <translation>永久结束活动并退回剩余金额</translation>
    </message>
    <message>
        <source>Set, change or drop the times a worker launches and closes the campaign at</source>
        <translation>设置、更改或删除 worker 上线和结束活动的时间</translation>
    </message>
    <message>
        <source>Read the list and the selected campaign again (F5)</source>
        <translation>重新读取列表和选中的活动（F5）</translation>
    </message>
    <message>
        <source>Waiting for Redis and the database…</source>
        <translation>正在等待 Redis 和数据库…</translation>
    </message>
    <message>
        <source>Campaign #%1 is not among the campaigns listed: select a campaign in the list to act on it.</source>
        <translation>活动 #%1 不在当前列表中：请先在列表中选中一个活动，再对它操作。</translation>
    </message>
    <message>
        <source>Campaign #%1 is above the four-eyes bound: a manager other than %2 must approve it before it is launched.</source>
        <translation>活动 #%1 超过双人审批额度：须由 %2 以外的另一位经理审批后才能上线。</translation>
    </message>
    <message>
        <source>Audited as %1.</source>
        <translation>审计记录为 %1。</translation>
    </message>
    <message>
        <source>You are asked for your name first: every change is audited under it.</source>
        <translation>首次操作前会先询问您的名字：每项更改都以此名字记入审计日志。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignConfirmation</name>
    <message>
        <source>Launch campaign #%1?</source>
        <translation>上线活动 #%1？</translation>
    </message>
    <message>
        <source>“%1” goes live now: its %2 envelopes (%3 in all) are written to the ledger and put in the grab pool, and users can grab at once.

A launch cannot be undone; you can pause the campaign at any time.</source>
        <translation>“%1”将立即上线：%2 个红包（共 %3）会写入账本并放入红包池，用户可以马上开抢。

上线后无法撤销；你可以随时暂停活动。</translation>
    </message>
    <message>
        <source>Launch now</source>
        <translation>立即上线</translation>
    </message>
    <message>
        <source>Pause campaign #%1?</source>
        <translation>暂停活动 #%1？</translation>
    </message>
    <message>
        <source>Grabs of “%1” stop at once: every grab is answered “not live” until you resume it. Envelopes already grabbed are still paid out.</source>
        <translation>“%1”将立即停止抢红包：在你恢复之前，每次抢红包都会得到“活动未进行”的应答。已被抢到的红包仍会照常发放。</translation>
    </message>
    <message>
        <source>Pause grabs</source>
        <translation>暂停抢红包</translation>
    </message>
    <message>
        <source>Resume campaign #%1?</source>
        <translation>恢复活动 #%1？</translation>
    </message>
    <message>
        <source>Grabs of “%1” start again at once, for the %2 envelopes left (%3).</source>
        <translation>“%1”将立即恢复抢红包，剩余 %2 个红包（%3）。</translation>
    </message>
    <message>
        <source>Resume grabs</source>
        <translation>恢复抢红包</translation>
    </message>
    <message>
        <source>Close campaign #%1?</source>
        <translation>结束活动 #%1？</translation>
    </message>
    <message>
        <source>Closing “%1” is final: grabs stop for good and the %2 envelopes left (%3) are refunded. Envelopes already grabbed are still paid out.

This cannot be undone.</source>
        <translation>结束“%1”是最终操作：抢红包永久停止，剩余的 %2 个红包（%3）将被退回。已被抢到的红包仍会照常发放。

此操作无法撤销。</translation>
    </message>
    <message>
        <source>Close and refund</source>
        <translation>结束并退回</translation>
    </message>
    <message>
        <source>Grabs of “%1” start again at once, but every envelope has been grabbed: users are told it is sold out.</source>
        <translation>“%1”将立即恢复抢红包，但所有红包都已被抢完：用户会得到“已抢完”的应答。</translation>
    </message>
    <message>
        <source>Closing “%1” is final: grabs stop for good. Every envelope has been grabbed, so nothing is refunded; envelopes already grabbed are still paid out.

This cannot be undone.</source>
        <translation>结束“%1”是最终操作：抢红包永久停止。所有红包都已被抢完，因此没有需要退回的金额；已被抢到的红包仍会照常发放。

此操作无法撤销。</translation>
    </message>
    <message>
        <source>Closing “%1” is final: grabs stop for good and the envelopes left then are refunded: about %2 envelopes (%3) as last read, fewer if the crowd grabs more before the close. Envelopes already grabbed are still paid out.

This cannot be undone.</source>
        <translation>结束“%1”后不可恢复：抢红包永久停止，届时剩余的红包将被退回：按最近一次读取约为 %2 个（%3），如果结束前又有人抢到则会更少。已被抢到的红包仍会照常发放。

此操作无法撤销。</translation>
    </message>
    <message>
        <source>Approve campaign #%1?</source>
        <translation>审批活动 #%1？</translation>
    </message>
    <message>
        <source>“%1” (%2 envelopes, %3 in all) is above the four-eyes bound. %4 created it; your approval, as a second manager, lets any manager launch it, and is audited under your account.

Check the amounts and the split preview before you approve: an approval cannot be taken back.</source>
        <translation>“%1”（%2 个红包，共 %3）超过双人审批额度。它由 %4 创建；您作为第二位经理审批后，任何经理都可以将其上线，审批会以您的账户记入审计日志。

审批前请核对金额和拆分预览：审批后无法撤回。</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>审批</translation>
    </message>
    <message>
        <source>Campaign #%1 was approved already, by %2; nothing changed.</source>
        <translation>活动 #%1 已由 %2 审批过，未做任何更改。</translation>
    </message>
    <message>
        <source>Campaign #%1 already was %2; nothing changed.</source>
        <translation>活动 #%1 原本就是“%2”状态，未做任何改动。</translation>
    </message>
    <message>
        <source>Campaign #%1 is live: users can grab now.</source>
        <translation>活动 #%1 已上线：用户现在可以抢红包了。</translation>
    </message>
    <message>
        <source>Campaign #%1 is paused: every grab is refused until you resume it.</source>
        <translation>活动 #%1 已暂停：在你恢复之前，所有抢红包请求都会被拒绝。</translation>
    </message>
    <message>
        <source>Campaign #%1 is live again.</source>
        <translation>活动 #%1 已恢复进行。</translation>
    </message>
    <message>
        <source>Campaign #%1 is closed; %2 were refunded.</source>
        <translation>活动 #%1 已结束，已退回 %2。</translation>
    </message>
    <message>
        <source>Campaign #%1 is approved by %2: a manager can launch it now.</source>
        <translation>活动 #%1 已由 %2 审批：经理现在可以将其上线。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignCreateDialog</name>
    <message>
        <source>New red-envelope campaign</source>
        <translation>新建红包活动</translation>
    </message>
    <message>
        <source>The total is split into envelopes when the campaign is launched; the preview shows that exact split. Creating writes a draft and an audit log entry only: nobody can grab until you launch it.</source>
        <translation>活动上线时才会把总金额拆分成红包，预览显示的正是届时的拆分结果。创建只会写入一份草稿和一条审计日志：上线之前，任何人都抢不到。</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>e.g. Spring Festival 2025</source>
        <translation>例如：2025 春节红包</translation>
    </message>
    <message>
        <source>&amp;Total (¥):</source>
        <translation>总金额（¥）(&amp;T)：</translation>
    </message>
    <message>
        <source>e.g. 8888.88</source>
        <translation>例如 8888.88</translation>
    </message>
    <message>
        <source>&amp;Envelopes:</source>
        <translation>红包个数(&amp;E)：</translation>
    </message>
    <message>
        <source>e.g. 1000</source>
        <translation>例如 1000</translation>
    </message>
    <message>
        <source>&amp;Minimum each (¥):</source>
        <translation>单个最小金额（¥）(&amp;M)：</translation>
    </message>
    <message>
        <source>&amp;Split:</source>
        <translation>拆分算法(&amp;S)：</translation>
    </message>
    <message>
        <source>The same seed always gives the same split, so an audit can replay it.</source>
        <translation>相同的种子总是得到相同的拆分结果，便于审计时复现。</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>S&amp;eed:</source>
        <translation>随机种子(&amp;E)：</translation>
    </message>
    <message>
        <source>How often one user may try to grab; further tries are refused.</source>
        <translation>每个用户最多可以尝试抢几次；超出次数的尝试会被拒绝。</translation>
    </message>
    <message>
        <source>&amp;Attempts per user:</source>
        <translation>每人尝试次数(&amp;A)：</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>红包数</translation>
    </message>
    <message>
        <source>Amount per envelope (¥)</source>
        <translation>单个红包金额（¥）</translation>
    </message>
    <message>
        <source>How the total is split</source>
        <translation>总金额拆分情况</translation>
    </message>
    <message>
        <source>Create draft</source>
        <translation>创建草稿</translation>
    </message>
    <message>
        <source>WeChat&apos;s rule: each envelope is drawn between the minimum and twice the average left. Early grabs vary little, the last ones a lot.</source>
        <translation>微信的规则：每个红包在最小金额与剩余平均金额的两倍之间随机取值。先抢的金额差别不大，最后几个差别很大。</translation>
    </message>
    <message>
        <source>Everybody first gets an even share; only the rest is split by double mean. Amounts stay close together.</source>
        <translation>每人先分到一份均等的保底金额，剩下的部分再按二倍均值法拆分。各红包金额比较接近。</translation>
    </message>
    <message>
        <source>Random cuts along the total: every envelope has the same chance of any amount, whatever the grab order.</source>
        <translation>在总金额上随机切分：无论抢的先后，每个红包抽到任一金额的机会都相同。</translation>
    </message>
    <message>
        <source>Fix the fields marked in red first.</source>
        <translation>请先修正标红的字段。</translation>
    </message>
    <message>
        <source>Enter your name as the operator first.</source>
        <translation>请先填写操作人姓名。</translation>
    </message>
    <message>
        <source>Computing the split…</source>
        <translation>正在计算拆分结果…</translation>
    </message>
    <message>
        <source>No preview: %1</source>
        <translation>无法预览：%1</translation>
    </message>
    <message>
        <source>Enter a total, a number of envelopes and a seed to see the split.</source>
        <translation>填写总金额、红包个数和随机种子后即可查看拆分结果。</translation>
    </message>
    <message>
        <source>Fix the fields marked in red to see the split.</source>
        <translation>修正标红的字段后即可查看拆分结果。</translation>
    </message>
    <message>
        <source>Smallest:</source>
        <translation>最小：</translation>
    </message>
    <message>
        <source>Largest:</source>
        <translation>最大：</translation>
    </message>
    <message>
        <source>Mean:</source>
        <translation>平均：</translation>
    </message>
    <message>
        <source>Median:</source>
        <translation>中位数：</translation>
    </message>
    <message numerus="yes">
        <source>%Ln envelope(s) hold exactly the minimum.</source>
        <translation>
            <numerusform>%Ln 个红包恰好为最小金额。</numerusform>
        </translation>
    </message>
    <message>
        <source>The first grabs get %1 …</source>
        <translation>最先抢到的金额依次为 %1 …</translation>
    </message>
    <message>
        <source>Preview of all %1 envelopes, as launch will write them (seed %2).</source>
        <translation>全部 %1 个红包的预览，与上线时写入的结果一致（种子 %2）。</translation>
    </message>
    <message>
        <source>, </source>
        <comment>separator between the items of a list</comment>
        <translation>，</translation>
    </message>
    <message>
        <source>Timetable:</source>
        <translation>时间表：</translation>
    </message>
    <message>
        <source>Create scheduled draft</source>
        <translation>创建定时草稿</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignDetailPanel</name>
    <message>
        <source>Drain</source>
        <translation>消耗进度</translation>
    </message>
    <message>
        <source>Envelopes</source>
        <translation>红包数</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>金额</translation>
    </message>
    <message>
        <source>Grabbed</source>
        <translation>已抢</translation>
    </message>
    <message>
        <source>Saved to the ledger</source>
        <translation>已入账</translation>
    </message>
    <message>
        <source>Paid out</source>
        <translation>已发放</translation>
    </message>
    <message>
        <source>Remaining in the pool</source>
        <translation>池中剩余</translation>
    </message>
    <message>
        <source>Refunded at close</source>
        <translation>结束时退回</translation>
    </message>
    <message>
        <source>Campaign total</source>
        <translation>活动总计</translation>
    </message>
    <message>
        <source>Ledger check</source>
        <translation>账本核对</translation>
    </message>
    <message>
        <source>Grabs per second</source>
        <translation>每秒抢红包次数</translation>
    </message>
    <message>
        <source>Select a campaign to watch it drain.</source>
        <translation>选择一个活动，查看红包的消耗进度。</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>%1 in %Ln envelope(s) of at least %2 · %3 split, seed %4 · up to %5 grab attempts per user</source>
        <translation>
            <numerusform>%1 拆成 %Ln 个红包，每个至少 %2 · %3，种子 %4 · 每人最多尝试 %5 次</numerusform>
        </translation>
    </message>
    <message>
        <source>Grabbed, payout pending</source>
        <translation>已抢待发放</translation>
    </message>
    <message>
        <source>Remaining</source>
        <translation>剩余</translation>
    </message>
    <message>
        <source>Refunded</source>
        <translation>已退回</translation>
    </message>
    <message>
        <source>Paid out %1</source>
        <translation>已发放 %1</translation>
    </message>
    <message>
        <source>Grabbed, payout pending %1</source>
        <translation>已抢待发放 %1</translation>
    </message>
    <message>
        <source>Remaining %1</source>
        <translation>剩余 %1</translation>
    </message>
    <message>
        <source>Refunded %1</source>
        <translation>已退回 %1</translation>
    </message>
    <message>
        <source>✔ The ledger checks out: the split, one envelope per user, one payout per grab and, once closed, grabbed + refunded = total.</source>
        <translation>✔ 账本核对无误：拆分正确，每个用户一个红包，每次抢红包一笔发放，活动结束后已抢 + 已退回 = 总金额。</translation>
    </message>
    <message>
        <source>Rule %1: %2</source>
        <translation>规则 %1：%2</translation>
    </message>
    <message>
        <source>Grabs happen only while the campaign is live.</source>
        <translation>只有活动进行中才能抢红包。</translation>
    </message>
    <message>
        <source>The rate appears from the second refresh on (auto-refresh in the toolbar).</source>
        <translation>从第二次刷新起显示速率（可在工具栏开启自动刷新）。</translation>
    </message>
    <message numerus="yes">
        <source>Now %1 grabs/s, peak %2 grabs/s, over the last %n refresh(es).</source>
        <translation>
            <numerusform>当前 %1 次/秒，峰值 %2 次/秒（最近 %n 次刷新）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Refused by the ledger (Redis had lost them)</source>
        <translation>被账本拒绝（Redis 曾丢失状态）</translation>
    </message>
    <message>
        <source>⚠ %1</source>
        <translation>⚠ %1</translation>
    </message>
    <message>
        <source>Payout pending (in flight or to be retried)</source>
        <translation>待发放（进行中或待重试）</translation>
    </message>
    <message>
        <source>Payouts per second</source>
        <translation>每秒发放数</translation>
    </message>
    <message>
        <source>Grabs and payouts per second</source>
        <translation>每秒抢红包数与发放数</translation>
    </message>
    <message numerus="yes">
        <source>Payouts: %1/s now · %2 pending at the provider or to be retried · %n provider error(s) (calls that did not pay, each retried with the same idempotency key)</source>
        <translation>
            <numerusform>发放：当前 %1 笔/秒 · %2 笔在支付方处理中或待重试 · 支付方错误 %n 次（未成功的调用，均用同一个幂等键重试）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2 of %3 left, %4 grabbed, %5 borrowed</source>
        <extracomment>One sub-pool of a campaign: its name, envelopes left of those dealt to it, grabbed, borrowed from other pools.</extracomment>
        <translation>%1：剩余 %2/%3，已抢 %4，借入 %5</translation>
    </message>
    <message>
        <source>Sub-pools: %1</source>
        <translation>子池：%1</translation>
    </message>
    <message>
        <source>retry its dead letters in &lt;a href=&quot;view:queues&quot;&gt;Queues&lt;/a&gt;</source>
        <translation>在&lt;a href=&quot;view:queues&quot;&gt;队列&lt;/a&gt;中重试它的死信</translation>
    </message>
    <message>
        <source>run a recovery in &lt;a href=&quot;view:recovery&quot;&gt;Recovery&lt;/a&gt;</source>
        <translation>在&lt;a href=&quot;view:recovery&quot;&gt;故障恢复&lt;/a&gt;中执行恢复</translation>
    </message>
    <message numerus="yes">
        <source>✘ %n rule(s) of the ledger are broken: %1, or escalate.</source>
        <translation>
            <numerusform>✘ 账本有 %n 条规则被破坏：请%1，或上报处理。</numerusform>
        </translation>
    </message>
    <message>
        <source> and </source>
        <translation>，并</translation>
    </message>
    <message>
        <source>Launches at %1 (in %2)</source>
        <translation>将于 %1 上线（%2后）</translation>
    </message>
    <message>
        <source>Closes at %1 (in %2)</source>
        <translation>将于 %1 结束（%2后）</translation>
    </message>
    <message>
        <source>Every grab and payout row was read, and the workers&apos; tally compared with them, as &lt;i&gt;lanternd verify&lt;/i&gt; does.</source>
        <translation>已读取每一条抢红包和发放记录，并与工作进程的累计数比对，与 &lt;i&gt;lanternd verify&lt;/i&gt; 的做法相同。</translation>
    </message>
    <message>
        <source>Grabs and payouts are judged from the tally the workers keep as they write them; a row changed by hand is counted again, a row added by hand only by &lt;a href=&quot;check:rows&quot;&gt;a check of every row&lt;/a&gt;.</source>
        <translation>抢红包和发放按工作进程写入时维护的累计数判断；手工改动过的记录会重新统计，手工新增的记录只有&lt;a href=&quot;check:rows&quot;&gt;逐条检查全部记录&lt;/a&gt;才能发现。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignDrainBar</name>
    <message>
        <source>, </source>
        <comment>separator between the items of a list</comment>
        <translation>，</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignListPane</name>
    <message>
        <source>Newer campaigns</source>
        <translation>较新的活动</translation>
    </message>
    <message>
        <source>Older campaigns</source>
        <translation>较早的活动</translation>
    </message>
    <message>
        <source>Search campaigns by name or id</source>
        <translation>按名称或编号搜索活动</translation>
    </message>
    <message>
        <source>List only the drafts above the four-eyes bound: who created each and who approved it</source>
        <translation>只列出超过双人审批额度的草稿：每个由谁创建、由谁审批</translation>
    </message>
    <message>
        <source>No campaigns yet</source>
        <translation>暂无活动</translation>
    </message>
    <message>
        <source>%1–%2 of %3</source>
        <translation>第 %1–%2 个，共 %3 个</translation>
    </message>
    <message numerus="yes">
        <source>Four eyes: %n awaiting approval</source>
        <translation>
            <numerusform>双人审批：%n 个待审批</numerusform>
        </translation>
    </message>
    <message>
        <source>Four eyes</source>
        <translation>双人审批</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignTimesDialog</name>
    <message>
        <source>Times of campaign #%1</source>
        <translation>活动 #%1 的时间</translation>
    </message>
    <message>
        <source>“%1”: a running worker (lanternd work) makes each change at its time, once, and the audit log records it under the name of whoever set the time. Untick a time to drop it.</source>
        <translation>“%1”：运行中的 worker（lanternd work）会在设定时间执行每项变更，且只执行一次；审计日志以设定时间者的名义记录。取消勾选即可删除该时间。</translation>
    </message>
    <message>
        <source>Save times</source>
        <translation>保存时间</translation>
    </message>
    <message>
        <source>Nothing changed yet.</source>
        <translation>尚未做任何更改。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignTimesForm</name>
    <message>
        <source>&amp;Launch at</source>
        <translation>上线时间(&amp;L)</translation>
    </message>
    <message>
        <source>Cl&amp;ose at</source>
        <translation>结束时间(&amp;O)</translation>
    </message>
    <message>
        <source>A worker prepares the envelopes ahead and opens grabs at this second, on the servers&apos; clock.</source>
        <translation>worker 会提前准备好红包，并按服务器时钟在这一秒开放抢红包。</translation>
    </message>
    <message>
        <source>A worker closes the campaign at this second and refunds what is left, as Close does.</source>
        <translation>worker 会在这一秒结束活动并退回剩余金额，与“结束”操作相同。</translation>
    </message>
    <message>
        <source>however late</source>
        <translation>不限延迟</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>When no worker was running at the time, a worker that comes back makes the change late; past this limit it is skipped and marked missed instead.</source>
        <translation>若到时没有 worker 运行，之后恢复的 worker 会延迟执行变更；超过此上限则跳过并标记为错过。</translation>
    </message>
    <message>
        <source>Late &amp;limit:</source>
        <translation>延迟上限(&amp;L)：</translation>
    </message>
    <message>
        <source>There is no such local time in %1 (the clocks skip it).</source>
        <translation>%1 不存在这个本地时间（时钟会跳过它）。</translation>
    </message>
    <message>
        <source>Times in %1 (%2). The servers&apos; clock says %3.</source>
        <translation>时间按 %1（%2）计。服务器时钟当前为 %3。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CampaignsView</name>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>Select a campaign to watch it drain.</source>
        <translation>选择一个活动，查看红包的消耗进度。</translation>
    </message>
    <message>
        <source>Loading campaign #%1…</source>
        <translation>正在加载活动 #%1…</translation>
    </message>
    <message>
        <source>No campaigns yet. Press “New campaign…” to create one.</source>
        <translation>暂无活动。点击“新建活动…”创建一个。</translation>
    </message>
    <message>
        <source>Draft #%1 “%2” created. Nobody can grab yet: check it below, then launch it.</source>
        <translation>草稿 #%1“%2”已创建。目前还没有人能抢：请在下方核对后再上线。</translation>
    </message>
    <message>
        <source>The campaigns could not be read.</source>
        <translation>无法读取活动列表。</translation>
    </message>
    <message>
        <source>Campaigns</source>
        <translation>红包活动</translation>
    </message>
    <message>
        <source>No campaigns yet.</source>
        <translation>暂无活动。</translation>
    </message>
    <message>
        <source>launch at %1</source>
        <translation>于 %1 上线</translation>
    </message>
    <message>
        <source>close at %1</source>
        <translation>于 %1 结束</translation>
    </message>
    <message>
        <source>Campaign #%1 has no times any more: it waits for a Launch or Close by hand.</source>
        <translation>活动 #%1 已没有定时：需要手动上线或结束。</translation>
    </message>
    <message>
        <source>Times of campaign #%1 saved: %2. A running worker makes each change at its time.</source>
        <translation>活动 #%1 的时间已保存：%2。运行中的 worker 会在设定时间执行每项变更。</translation>
    </message>
    <message>
        <source>; </source>
        <comment>separator between scheduled times</comment>
        <translation>；</translation>
    </message>
</context>
<context>
    <name>lantern::ui::CheckinStatsView</name>
    <message>
        <source>&amp;Show</source>
        <translation>显示(&amp;S)</translation>
    </message>
    <message>
        <source>Checked in</source>
        <translation>已签到</translation>
    </message>
    <message>
        <source>Make-ups</source>
        <translation>补签</translation>
    </message>
    <message>
        <source>Month:</source>
        <translation>月份：</translation>
    </message>
    <message>
        <source>Users who checked in at least once this month</source>
        <translation>本月至少签到一次的用户</translation>
    </message>
    <message>
        <source>Users who checked in on every day of the month so far, make-ups included</source>
        <translation>本月截至今天每天都签到的用户（含补签）</translation>
    </message>
    <message>
        <source>Active this month: %1</source>
        <translation>本月活跃：%1</translation>
    </message>
    <message>
        <source>Every day so far: %1</source>
        <translation>截至今天每天签到：%1</translation>
    </message>
    <message>
        <source>Check-ins and make-ups per day, %1</source>
        <translation>每日签到与补签，%1</translation>
    </message>
    <message>
        <source>Could not read the check-in statistics.</source>
        <translation>无法读取签到统计。</translation>
    </message>
    <message>
        <source>Check-in statistics</source>
        <translation>签到统计</translation>
    </message>
    <message>
        <source>MMMM yyyy</source>
        <extracomment>The month in the chart&apos;s title, as QDate::toString formats it (&quot;April 2026&quot;; &quot;2026年4月&quot;)</extracomment>
        <translation>yyyy年M月</translation>
    </message>
    <message>
        <source>The figures a worker keeps, read from every user&apos;s bits once a minute</source>
        <translation>由一个工作进程保存的数据，每分钟从全部用户的签到位读取一次</translation>
    </message>
    <message>
        <source>As of %1</source>
        <extracomment>When the figures shown were read by a worker (they are kept, not read on each refresh).</extracomment>
        <translation>截至 %1</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionCheckReport</name>
    <message>
        <source>%1 ms</source>
        <extracomment>A round trip time in milliseconds, e.g. &quot;0.42 ms&quot;.</extracomment>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>PING answered in %1</source>
        <translation>PING 响应耗时 %1</translation>
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
        <translation>SELECT 1 响应耗时 %1</translation>
    </message>
    <message>
        <source>schema version %1</source>
        <translation>表结构版本 %1</translation>
    </message>
    <message>
        <source>no Lantern tables yet</source>
        <translation>尚无 Lantern 表</translation>
    </message>
    <message>
        <source>SQL</source>
        <translation>SQL</translation>
    </message>
    <message>
        <source>Tested read-only: nothing was written.</source>
        <translation>以只读方式测试：没有写入任何数据。</translation>
    </message>
    <message>
        <source>Redis Cluster</source>
        <translation>Redis 集群</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <extracomment>How many nodes a Redis Cluster has, e.g. &quot;6 nodes&quot; (followed by &quot;3 masters&quot;).</extracomment>
        <translation>
            <numerusform>%n 个节点</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n master(s)</source>
        <extracomment>How many of a Redis Cluster&apos;s nodes are masters, e.g. &quot;3 masters&quot;.</extracomment>
        <translation>
            <numerusform>%n 个主节点</numerusform>
        </translation>
    </message>
    <message>
        <source>master, slots %1</source>
        <translation>主节点，槽 %1</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>replica</source>
        <translation>副本</translation>
    </message>
    <message>
        <source>replica of %1</source>
        <translation>%1 的副本</translation>
    </message>
    <message>
        <source>the cluster marks it failing</source>
        <translation>集群标记其为故障</translation>
    </message>
    <message>
        <source>not reachable</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>cluster_state: %1, %2 of 16384 slots served</source>
        <extracomment>The Redis Cluster&apos;s own state when it is not &quot;ok&quot;, e.g. &quot;cluster_state: fail, 10923 of 16384 slots served&quot;.</extracomment>
        <translation>cluster_state：%1，16384 个槽中 %2 个有节点服务</translation>
    </message>
    <message>
        <source>Sentinel</source>
        <translation>哨兵</translation>
    </message>
    <message>
        <source>master %1</source>
        <translation>主节点 %1</translation>
    </message>
    <message>
        <source>TLS</source>
        <translation>TLS</translation>
    </message>
    <message>
        <source>role %1</source>
        <extracomment>The role Redis answers with, as INFO names it: &quot;master&quot; or &quot;slave&quot;.</extracomment>
        <translation>角色 %1</translation>
    </message>
    <message>
        <source>at %1</source>
        <translation>位于 %1</translation>
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
        <translation>已按 CA 校验证书链，未校验主机名（Qt 6.4 的 MySQL 驱动）。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionProfileForm</name>
    <message>
        <source>Profile</source>
        <translation>连接配置</translation>
    </message>
    <message>
        <source>Read-only: only reads reach Redis and SQL; every change is refused</source>
        <translation>只读：只向 Redis 和 SQL 发送读操作，拒绝一切修改</translation>
    </message>
    <message>
        <source>e.g. production</source>
        <translation>例如 production</translation>
    </message>
    <message>
        <source>Letters, digits, “_”, “.” and “-”; use it as lantern --profile NAME</source>
        <translation>字母、数字、“_”、“.”和“-”；用法：lantern --profile NAME</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无密码</translation>
    </message>
    <message>
        <source>System time zone (%1)</source>
        <translation>系统时区（%1）</translation>
    </message>
    <message>
        <source>Enforced by the connections themselves: Redis commands outside a list of reads and SQL other than SELECT are never sent, whatever a view or lanternd tries.</source>
        <translation>由连接本身强制执行：无论哪个视图或 lanternd 发起请求，只读命令列表以外的 Redis 命令和 SELECT 以外的 SQL 都不会被发送。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Redis URL</source>
        <translation>Redis URL</translation>
    </message>
    <message>
        <source>Redis password</source>
        <translation>Redis 密码</translation>
    </message>
    <message>
        <source>SQL URL</source>
        <translation>SQL URL</translation>
    </message>
    <message>
        <source>SQL password</source>
        <translation>SQL 密码</translation>
    </message>
    <message>
        <source>Key prefix</source>
        <translation>键前缀</translation>
    </message>
    <message>
        <source>Time zone</source>
        <translation>时区</translation>
    </message>
    <message>
        <source>reading the keychain…</source>
        <translation>正在读取钥匙串…</translation>
    </message>
    <message>
        <source>No keychain service answers on this machine, so passwords are kept in memory until the console closes — never on disk. Type them again after a restart.</source>
        <translation>本机没有可用的钥匙串服务，因此密码只保存在内存中，直到控制台关闭——绝不写入磁盘。重启后请重新输入。</translation>
    </message>
    <message>
        <source>Passwords are kept in the system keychain, never in the profile file.</source>
        <translation>密码保存在系统钥匙串中，绝不写入连接配置文件。</translation>
    </message>
    <message>
        <source>Servers</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>TLS</source>
        <translation>TLS</translation>
    </message>
    <message>
        <source>Sentinel</source>
        <translation>哨兵</translation>
    </message>
    <message>
        <source>SSH tunnel</source>
        <translation>SSH 隧道</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionProfileList</name>
    <message>
        <source>No saved profiles yet: fill in the form and press Save.</source>
        <translation>还没有保存的连接配置：填写表单后点击“保存”。</translation>
    </message>
    <message>
        <source>New</source>
        <translation>新建</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Saved profiles</source>
        <translation>已保存的连接配置</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionQuestions</name>
    <message>
        <source>Switch</source>
        <translation>切换</translation>
    </message>
    <message>
        <source>Trust this SSH server?</source>
        <translation>信任此 SSH 服务器？</translation>
    </message>
    <message>
        <source>The SSH server %1 is not in your known_hosts file yet.

Its host key&apos;s fingerprint is
%2

Compare it with the fingerprint its administrator gives you (ssh-keygen -lf on the server&apos;s host key). Only if they are the same, trust it: the key is written to ~/.ssh/known_hosts, and a different key later is refused.</source>
        <translation>SSH 服务器 %1 尚未记录在您的 known_hosts 文件中。

其主机密钥指纹为
%2

请与管理员提供的指纹核对（在服务器上对主机密钥运行 ssh-keygen -lf）。只有两者一致时才信任它：密钥将写入 ~/.ssh/known_hosts，以后若密钥不同将被拒绝。</translation>
    </message>
    <message>
        <source>Trust and connect</source>
        <translation>信任并连接</translation>
    </message>
    <message>
        <source>Redis answered in %1 and SQL in %2. Every view reconnects to “%3”; what they show now is read again.</source>
        <translation>Redis 在 %1 内应答，SQL 在 %2 内应答。所有视图将重新连接到“%3”，当前显示的内容会重新读取。</translation>
    </message>
    <message>
        <source>The sandbox stops: its private Redis server and its worker end, and its demo data is discarded (a sandbox started later begins with fresh demo data).</source>
        <translation>沙盒将停止：其私有 Redis 服务器和工作进程结束，演示数据被丢弃（之后启动的沙盒会使用全新的演示数据）。</translation>
    </message>
    <message>
        <source>The console leaves %1.</source>
        <translation>控制台将离开%1。</translation>
    </message>
    <message>
        <source>“%1” is read-only: every change will be refused.</source>
        <translation>“%1”为只读：所有更改都会被拒绝。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConnectionsView</name>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Use this profile</source>
        <translation>使用此配置</translation>
    </message>
    <message>
        <source>Not connected yet.</source>
        <translation>尚未连接。</translation>
    </message>
    <message>
        <source>Delete profile</source>
        <translation>删除连接配置</translation>
    </message>
    <message>
        <source>Delete the profile “%1” and its saved passwords?</source>
        <translation>删除连接配置“%1”及其保存的密码？</translation>
    </message>
    <message>
        <source>Connect to both servers and measure one round trip each (Redis PING, SQL SELECT 1)</source>
        <translation>连接两台服务器，各测一次往返耗时（Redis PING、SQL SELECT 1）</translation>
    </message>
    <message>
        <source>Save the profile; passwords go to the system keychain, never into the file</source>
        <translation>保存连接配置；密码存入系统钥匙串，绝不写入文件</translation>
    </message>
    <message>
        <source>no saved profile</source>
        <translation>未保存的配置</translation>
    </message>
    <message>
        <source>In use: &lt;b&gt;%1&lt;/b&gt; — Redis %2 · SQL %3 · key prefix %4 · %5</source>
        <translation>当前使用：&lt;b&gt;%1&lt;/b&gt; — Redis %2 · SQL %3 · 键前缀 %4 · %5</translation>
    </message>
    <message>
        <source>read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>Profile “%1” saved.</source>
        <translation>连接配置“%1”已保存。</translation>
    </message>
    <message>
        <source>Profile “%1” deleted.</source>
        <translation>连接配置“%1”已删除。</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>正在测试…</translation>
    </message>
    <message>
        <source>Give the profile a name first.</source>
        <translation>请先为连接配置命名。</translation>
    </message>
    <message>
        <source>Switching the console to “%1”…</source>
        <translation>正在把控制台切换到“%1”…</translation>
    </message>
    <message>
        <source>down</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>Connections</source>
        <translation>连接管理</translation>
    </message>
    <message>
        <source>Test this profile&apos;s servers, then, once you confirm, reconnect the whole console to them</source>
        <translation>先测试此配置的服务器，经您确认后再将整个控制台重新连接到它们</translation>
    </message>
    <message>
        <source>Testing the servers of “%1” before switching…</source>
        <translation>切换前正在测试“%1”的服务器…</translation>
    </message>
    <message>
        <source>the sandbox</source>
        <translation>沙盒</translation>
    </message>
    <message>
        <source>the servers given on the command line</source>
        <translation>命令行指定的服务器</translation>
    </message>
    <message>
        <source>“%1”</source>
        <translation>“%1”</translation>
    </message>
    <message>
        <source>Not switched to “%1”: %2 The console stays on %3.</source>
        <translation>未切换到“%1”：%2 控制台仍使用%3。</translation>
    </message>
    <message>
        <source>Switch the console to “%1”?</source>
        <translation>将控制台切换到“%1”？</translation>
    </message>
    <message>
        <source>Still on %1: nothing was switched.</source>
        <translation>仍在使用%1：未做任何切换。</translation>
    </message>
    <message>
        <source>Back to the sandbox…</source>
        <translation>返回沙盒…</translation>
    </message>
    <message>
        <source>Leave these servers for a fresh sandbox: a private Redis and an SQLite file with demo data</source>
        <translation>离开这些服务器，改用全新的沙盒：私有的 Redis 和带演示数据的 SQLite 文件</translation>
    </message>
    <message>
        <source>“%1” points at this console&apos;s sandbox (Redis %2), which stops when the console leaves it: the session would land on a server that is gone. Choose a profile of other servers; the console stays on the sandbox.</source>
        <translation>“%1”指向本控制台的沙盒（Redis %2），而控制台一离开沙盒它就会停止：会话将落到一个已不存在的服务器上。请选择指向其他服务器的配置；控制台仍停留在沙盒。</translation>
    </message>
    <message>
        <source>Every view reconnects to a fresh sandbox: a private Redis server and an SQLite file with demo data, on this computer. The console leaves %1.</source>
        <translation>所有视图都将重新连接到一个全新的沙盒：本机上的私有 Redis 服务器和带演示数据的 SQLite 文件。控制台将离开%1。</translation>
    </message>
    <message>
        <source>Switch the console to the sandbox?</source>
        <translation>把控制台切换到沙盒？</translation>
    </message>
    <message>
        <source>through the SSH tunnel %1</source>
        <translation>经由 SSH 隧道 %1</translation>
    </message>
    <message>
        <source>TLS not verified</source>
        <translation>TLS 未校验</translation>
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
        <source>Select this day (YYYY-MM-DD) in the calendar.</source>
        <translation>在日历中选中这一天（YYYY-MM-DD）。</translation>
    </message>
    <message>
        <source>date</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>true: refuse every write where commands are sent (Redis and SQL).</source>
        <translation>true：在发送命令的地方拒绝一切写操作（Redis 和 SQL）。</translation>
    </message>
    <message>
        <source>Show this campaign (its id).</source>
        <translation>显示这个活动（活动 ID）。</translation>
    </message>
    <message>
        <source>id</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>unknown view &apos;%1&apos;: expected one of %2</source>
        <translation>未知视图“%1”：应为 %2 之一</translation>
    </message>
    <message>
        <source>invalid --campaign &apos;%1&apos;: expected a campaign id (a positive whole number)</source>
        <translation>--campaign“%1”无效：应为活动 ID（正整数）</translation>
    </message>
    <message>
        <source>Colours: system (the default), light or dark.</source>
        <translation>配色：system（默认，跟随系统）、light（浅色）或 dark（深色）。</translation>
    </message>
    <message>
        <source>theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>invalid --theme &apos;%1&apos;: expected system, light or dark</source>
        <translation>无效的 --theme“%1”：应为 system、light 或 dark</translation>
    </message>
    <message>
        <source>The view to open or render: users, campaigns, queues, recovery, audit, connections, stats.</source>
        <translation>要打开或渲染的视图：users、campaigns、queues、recovery、audit、connections、stats。</translation>
    </message>
    <message>
        <source>The window&apos;s size in logical pixels, e.g. 1366x768 (a screenshot&apos;s too).</source>
        <translation>窗口大小（逻辑像素），例如 1366x768（截图同样适用）。</translation>
    </message>
    <message>
        <source>WxH</source>
        <translation>宽x高</translation>
    </message>
    <message>
        <source>invalid --size &apos;%1&apos;: expected WIDTHxHEIGHT in pixels, e.g. 1366x768</source>
        <translation>--size“%1”无效：应为以像素为单位的 宽x高，例如 1366x768</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ConsoleSession</name>
    <message numerus="yes">
        <source>Worker: %n check-in(s) persisted</source>
        <translation>
            <numerusform>工作进程：已持久化 %n 条签到</numerusform>
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
            <numerusform>工作进程：新持久化 %n 条签到</numerusform>
        </translation>
    </message>
    <message>
        <source>Worker: retrying</source>
        <translation>工作进程：正在重试</translation>
    </message>
    <message>
        <source>Worker: running again</source>
        <translation>工作进程：已恢复运行</translation>
    </message>
</context>
<context>
    <name>lantern::ui::DeadLetterEditDialog</name>
    <message>
        <source>Edit and retry</source>
        <translation>编辑并重试</translation>
    </message>
    <message>
        <source>Correct the entry, then put it back on the queue of %1 in place of the one stored. The audit log keeps both versions.</source>
        <translation>修正该条目，然后用它替换存储的条目放回 %1 的队列。审计日志会保留两个版本。</translation>
    </message>
    <message>
        <source>Put it back on the queue</source>
        <translation>放回队列</translation>
    </message>
    <message>
        <source>Unchanged: correct the entry first (Retry puts it back as it is).</source>
        <translation>未修改：请先修正条目（“重试”会按原样放回）。</translation>
    </message>
    <message>
        <source>A worker of %1 could not read this: it is not a task of that queue.</source>
        <translation>%1 的工作进程无法读取此内容：它不是该队列的任务。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::DeadLetterPanel</name>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>丢弃</translation>
    </message>
    <message>
        <source>Retry all…</source>
        <translation>全部重试…</translation>
    </message>
    <message>
        <source>Discard all…</source>
        <translation>全部丢弃…</translation>
    </message>
    <message>
        <source>Dead letters</source>
        <translation>死信</translation>
    </message>
    <message>
        <source>Put the selected entries back on their queue</source>
        <translation>把选中的条目放回原队列</translation>
    </message>
    <message>
        <source>Remove the selected entries for good (the audit log keeps a copy)</source>
        <translation>永久删除选中的条目（审计日志会保留副本）</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>No dead letters</source>
        <translation>没有死信</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <source>%1–%2 of %3</source>
        <translation>第 %1–%2 条，共 %3 条</translation>
    </message>
    <message>
        <source>Retry dead letters</source>
        <translation>重试死信</translation>
    </message>
    <message numerus="yes">
        <source>Put all %n entry(s) of “%1” back on its queue?</source>
        <translation>
            <numerusform>把“%1”中的全部 %n 条放回原队列？</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Put %n selected entry(s) of “%1” back on its queue?</source>
        <translation>
            <numerusform>把“%1”中选中的 %n 条放回原队列？</numerusform>
        </translation>
    </message>
    <message>
        <source>Workers will process them again; a payout keeps its idempotency key, so nothing is paid twice.</source>
        <translation>工作进程会重新处理它们；发放任务保留原来的幂等键，不会重复付款。</translation>
    </message>
    <message>
        <source>Retry all</source>
        <translation>全部重试</translation>
    </message>
    <message>
        <source>Discard dead letters</source>
        <translation>丢弃死信</translation>
    </message>
    <message numerus="yes">
        <source>Discard all %n entry(s) of “%1”?</source>
        <translation>
            <numerusform>丢弃“%1”中的全部 %n 条？</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Discard %n selected entry(s) of “%1”?</source>
        <translation>
            <numerusform>丢弃“%1”中选中的 %n 条？</numerusform>
        </translation>
    </message>
    <message>
        <source>They are removed for good; the audit log keeps a copy of each.</source>
        <translation>它们将被永久删除；审计日志会为每一条保留副本。</translation>
    </message>
    <message>
        <source>Discard all</source>
        <translation>全部丢弃</translation>
    </message>
    <message numerus="yes">
        <source>Retrying %n entry(s)…</source>
        <translation>
            <numerusform>正在重试 %n 条…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Discarding %n entry(s)…</source>
        <translation>
            <numerusform>正在丢弃 %n 条…</numerusform>
        </translation>
    </message>
    <message>
        <source>Select an entry to see it as it is stored, byte for byte.</source>
        <translation>选择一个条目，按存储时的原样逐字节查看。</translation>
    </message>
    <message>
        <source>Set aside before Lantern kept the reason: when and why were not recorded.</source>
        <translation>该条目在 Lantern 记录原因之前被搁置：时间和原因均未记录。</translation>
    </message>
    <message>
        <source>Set aside %1: %2</source>
        <translation>搁置于 %1：%2</translation>
    </message>
    <message>
        <source>no reason given</source>
        <translation>未说明原因</translation>
    </message>
    <message numerus="yes">
        <source>(after %n tries)</source>
        <translation>
            <numerusform>（尝试 %n 次后）</numerusform>
        </translation>
    </message>
    <message>
        <source>Edit and retry…</source>
        <translation>编辑并重试…</translation>
    </message>
    <message>
        <source>Correct the selected entry and put it back on its queue in its place</source>
        <translation>修正所选条目，并用它替换原条目放回其队列</translation>
    </message>
    <message>
        <source>A worker cannot read this entry, so a retry would bring it straight back here. Correct it with “Edit and retry…”, or discard it (the audit log keeps a copy).</source>
        <translation>工作进程无法读取此条目，重试会让它立即回到这里。请用“编辑并重试…”修正它，或将其丢弃（审计日志会保留副本）。</translation>
    </message>
    <message>
        <source>Putting the edited entry back…</source>
        <translation>正在放回编辑后的条目…</translation>
    </message>
    <message>
        <source>Previous page</source>
        <translation>上一页</translation>
    </message>
    <message>
        <source>Next page</source>
        <translation>下一页</translation>
    </message>
    <message>
        <source>This list holds more than %1 entries: it can be shown newest or oldest first (click “#”), not sorted by another column.</source>
        <translation>此列表超过 %1 条：只能按最新或最早在前显示（点击“#”），不能按其他列排序。</translation>
    </message>
    <message>
        <source>This list now holds more than %1 entries: it is shown by position instead.</source>
        <translation>此列表现已超过 %1 条：改为按位置显示。</translation>
    </message>
    <message>
        <source>Entries a worker cannot read stay in the list, to be edited or discarded.</source>
        <translation>工作进程无法读取的条目会留在列表中，等待编辑或丢弃。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::FilePathField</name>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
</context>
<context>
    <name>lantern::ui::MainWindow</name>
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
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Refresh now</source>
        <translation>立即刷新(&amp;R)</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Auto-refresh:</source>
        <translation>自动刷新：</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message numerus="yes">
        <source>every %n s</source>
        <translation>
            <numerusform>每 %n 秒</numerusform>
        </translation>
    </message>
    <message>
        <source>Lantern Console — %1</source>
        <translation>Lantern 控制台 — %1</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Auto-refresh is paused: what you see stays as it is.</source>
        <translation>自动刷新已暂停：当前显示的内容保持不变。</translation>
    </message>
    <message>
        <source>Pause auto-refresh</source>
        <translation>暂停自动刷新</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>跟随系统语言</translation>
    </message>
    <message>
        <source>English</source>
        <comment>the English language, keep its own name</comment>
        <translation>English</translation>
    </message>
    <message>
        <source>Chinese (Simplified) — 简体中文</source>
        <comment>the Chinese language, in its own name</comment>
        <translation>简体中文</translation>
    </message>
    <message>
        <source>Read-only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>This connection refuses every change: look-ups and views work, make-ups, campaign actions, dead-letter and recovery actions are disabled.</source>
        <translation>此连接拒绝一切修改：查询和各视图照常可用，补签、红包活动操作、死信和故障恢复操作均已禁用。</translation>
    </message>
    <message>
        <source>Set &amp;operator name…</source>
        <translation>设置操作员名字(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Sandbox crowd:</source>
        <translation>沙盒人群：</translation>
    </message>
    <message>
        <source> grabs/s</source>
        <translation> 次抢/秒</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Simulated users grab this many envelopes per second from every live campaign of the sandbox, including the ones you create and launch.</source>
        <translation>模拟用户每秒从沙盒中每个进行中的活动（包括您创建并上线的活动）抢这么多个红包。</translation>
    </message>
    <message>
        <source>…</source>
        <comment>a server not heard from yet</comment>
        <translation>…</translation>
    </message>
    <message>
        <source>up</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>Redis and SQL as last heard of (Redis at %1, SQL at %2): every answer a view gets counts, and a PING and a SELECT 1 measure the round trips every 15 seconds and whenever a request fails.</source>
        <translation>Redis 和 SQL 最近一次的状态（Redis 于 %1，SQL 于 %2）：视图收到的每个应答都会计入；PING 和 SELECT 1 每 15 秒以及每次请求失败时测量往返时间。</translation>
    </message>
    <message>
        <source>Operator: %1</source>
        <translation>操作员：%1</translation>
    </message>
    <message>
        <source>Every change you make is recorded in the audit log under this name. Click to change it.</source>
        <translation>您的每项更改都以此名字记入审计日志。点击可更改。</translation>
    </message>
    <message>
        <source>Operator: not set</source>
        <translation>操作员：未设置</translation>
    </message>
    <message>
        <source>No operator name yet: the first change you make asks for it, since every change is recorded in the audit log under a name. Click to set it now.</source>
        <translation>尚未设置操作员名字：由于每项更改都要以名字记入审计日志，您第一次进行更改时会被询问。点击可立即设置。</translation>
    </message>
    <message>
        <source>&amp;Alerts…</source>
        <translation>告警(&amp;A)…</translation>
    </message>
    <message>
        <source>Account: %1</source>
        <translation>账号：%1</translation>
    </message>
    <message>
        <source>You are signed in to the servers with this account: they record it in the audit log and allow only what its role may do.</source>
        <translation>您以此账号登录服务器：服务器在审计日志中记录它，并只允许其角色可做的操作。</translation>
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
        <source>&amp;Reason:</source>
        <translation>原因(&amp;R)：</translation>
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
    <name>lantern::ui::OperatorDialog</name>
    <message>
        <source>Change the operator</source>
        <translation>更改操作员</translation>
    </message>
    <message>
        <source>Who is at the console?</source>
        <translation>谁在使用控制台？</translation>
    </message>
    <message>
        <source>Every change made in this console — make-ups, campaign actions, dead letters, recovery — is recorded in the audit log under this name, until you change it here or close the console.</source>
        <translation>在此控制台中做出的每项更改（补签、活动操作、死信、恢复）都会以此名字记入审计日志，直到您在此更改或关闭控制台。</translation>
    </message>
    <message>
        <source>Your name</source>
        <translation>您的名字</translation>
    </message>
    <message>
        <source>&amp;Operator:</source>
        <translation>操作员(&amp;O)：</translation>
    </message>
    <message>
        <source>Use this name</source>
        <translation>使用此名字</translation>
    </message>
</context>
<context>
    <name>lantern::ui::OperatorIdentity</name>
    <message>
        <source>Enter the name the audit log records for your changes.</source>
        <translation>请输入审计日志为您的更改记录的名字。</translation>
    </message>
    <message numerus="yes">
        <source>At most %n characters.</source>
        <translation>
            <numerusform>最多 %n 个字符。</numerusform>
        </translation>
    </message>
    <message>
        <source>No control characters, please.</source>
        <translation>请勿使用控制字符。</translation>
    </message>
    <message>
        <source>The session&apos;s operator, recorded in the audit log; change it in the window&apos;s status bar.</source>
        <translation>本次会话的操作员，会记入审计日志；可在窗口状态栏中更改。</translation>
    </message>
    <message>
        <source>Operator:</source>
        <translation>操作员：</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ProfileSentinelFields</name>
    <message>
        <source>Find the master through Redis Sentinel</source>
        <translation>通过 Redis 哨兵查找主节点</translation>
    </message>
    <message>
        <source>Every connection asks the sentinels for the master, so the console follows a failover by itself</source>
        <translation>每次连接都向哨兵询问主节点，因此控制台会自动跟随故障转移</translation>
    </message>
    <message>
        <source>e.g. mymaster</source>
        <translation>例如 mymaster</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>The user and password on the Servers tab are the master&apos;s; these are the sentinels&apos; own, when they ask for one (requirepass or an ACL user on the sentinels).</source>
        <translation>“服务器”页上的用户和密码属于主节点；这里填写哨兵自己的凭据（哨兵设置了 requirepass 或 ACL 用户时）。</translation>
    </message>
    <message>
        <source>Sentinels</source>
        <translation>哨兵列表</translation>
    </message>
    <message>
        <source>Master name</source>
        <translation>主节点名称</translation>
    </message>
    <message>
        <source>Sentinel user</source>
        <translation>哨兵用户</translation>
    </message>
    <message>
        <source>Sentinel password</source>
        <translation>哨兵密码</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ProfileSshFields</name>
    <message>
        <source>Reach the servers through an SSH tunnel</source>
        <translation>经由 SSH 隧道访问服务器</translation>
    </message>
    <message>
        <source>The SSH private key</source>
        <translation>SSH 私钥</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Redis and the database are reached as the SSH server reaches them: give their addresses as seen from there</source>
        <translation>Redis 和数据库将以 SSH 服务器所见的地址访问：请填写从那里看到的地址</translation>
    </message>
    <message>
        <source>e.g. bastion.example.com</source>
        <translation>例如 bastion.example.com</translation>
    </message>
    <message>
        <source>e.g. ops</source>
        <translation>例如 ops</translation>
    </message>
    <message>
        <source>SSH agent (ssh-add)</source>
        <translation>SSH agent（ssh-add）</translation>
    </message>
    <message>
        <source>Key file</source>
        <translation>密钥文件</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>密码</translation>
    </message>
    <message>
        <source>The server&apos;s host key is checked against ~/.ssh/known_hosts: the first time, the console shows its fingerprint and asks; a key that changed is refused.</source>
        <translation>服务器的主机密钥会与 ~/.ssh/known_hosts 核对：首次连接时控制台会显示指纹并询问；密钥变更则拒绝连接。</translation>
    </message>
    <message>
        <source>SSH server</source>
        <translation>SSH 服务器</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Log in with</source>
        <translation>登录方式</translation>
    </message>
    <message>
        <source>Key passphrase</source>
        <translation>密钥口令</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>lantern::ui::ProfileTlsFields</name>
    <message>
        <source>PEM files (*.pem *.crt *.key *.cer);;All files (*)</source>
        <translation>PEM 文件 (*.pem *.crt *.key *.cer);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Connect to Redis over TLS (rediss://)</source>
        <translation>通过 TLS 连接 Redis（rediss://）</translation>
    </message>
    <message>
        <source>The CA that signs the Redis servers&apos; certificates</source>
        <translation>签发 Redis 服务器证书的 CA</translation>
    </message>
    <message>
        <source>The client certificate for Redis (mutual TLS)</source>
        <translation>Redis 客户端证书（双向 TLS）</translation>
    </message>
    <message>
        <source>The client certificate&apos;s key</source>
        <translation>客户端证书的私钥</translation>
    </message>
    <message>
        <source>The CA that signs the database server&apos;s certificate</source>
        <translation>签发数据库服务器证书的 CA</translation>
    </message>
    <message>
        <source>The client certificate for the database (REQUIRE X509)</source>
        <translation>数据库客户端证书（REQUIRE X509）</translation>
    </message>
    <message>
        <source>The database client certificate&apos;s key</source>
        <translation>数据库客户端证书的私钥</translation>
    </message>
    <message>
        <source>the system&apos;s CAs</source>
        <translation>系统的 CA</translation>
    </message>
    <message>
        <source>the host of the URL</source>
        <translation>URL 中的主机</translation>
    </message>
    <message>
        <source>Sent as SNI and checked in the certificate instead of the host connected to</source>
        <translation>作为 SNI 发送，并代替所连接的主机在证书中校验</translation>
    </message>
    <message>
        <source>full: the chain and the host name or IP (recommended)</source>
        <translation>full：校验证书链以及主机名或 IP（推荐）</translation>
    </message>
    <message>
        <source>ca: the chain only (nodes announced by IP, certificates naming hosts)</source>
        <translation>ca：只校验证书链（节点以 IP 公布而证书写的是主机名时）</translation>
    </message>
    <message>
        <source>none: nothing is checked (insecure)</source>
        <translation>none：不做任何校验（不安全）</translation>
    </message>
    <message>
        <source>Nothing is checked: anyone on the path can read and change the traffic, passwords included. The console says so wherever this connection is used.</source>
        <translation>不做任何校验：链路上的任何人都能读取和篡改通信内容，包括密码。凡使用此连接之处，控制台都会提示这一点。</translation>
    </message>
    <message>
        <source>CA file</source>
        <translation>CA 文件</translation>
    </message>
    <message>
        <source>Client certificate</source>
        <translation>客户端证书</translation>
    </message>
    <message>
        <source>Client key</source>
        <translation>客户端私钥</translation>
    </message>
    <message>
        <source>Server name (SNI)</source>
        <translation>服务器名称（SNI）</translation>
    </message>
    <message>
        <source>Verify</source>
        <translation>校验</translation>
    </message>
    <message>
        <source>Redis</source>
        <translation>Redis</translation>
    </message>
    <message>
        <source>A CA file turns TLS on. Qt 6.4&apos;s MySQL driver checks that the server&apos;s certificate chain leads to this CA, not that it names the host: use a CA that signs database servers only.</source>
        <translation>填写 CA 文件即启用 TLS。Qt 6.4 的 MySQL 驱动只校验服务器证书链是否通向此 CA，不校验证书上的主机名：请使用只为数据库服务器签发证书的 CA。</translation>
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
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancelling after the current batch…</source>
        <translation>当前批次完成后取消…</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
</context>
<context>
    <name>lantern::ui::QueueThroughputChart</name>
    <message>
        <source>Waiting (tasks)</source>
        <translation>等待中（任务数）</translation>
    </message>
    <message>
        <source>Drained per second</source>
        <translation>每秒处理数</translation>
    </message>
    <message>
        <source>tasks</source>
        <translation>任务数</translation>
    </message>
    <message>
        <source>per s</source>
        <translation>每秒</translation>
    </message>
</context>
<context>
    <name>lantern::ui::QueuesView</name>
    <message>
        <source>Waiting for Redis…</source>
        <translation>正在等待 Redis…</translation>
    </message>
    <message>
        <source>Queues</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) waiting</source>
        <translation>
            <numerusform>%n 个任务等待中</numerusform>
        </translation>
    </message>
    <message>
        <source>oldest %1</source>
        <translation>最早一个已等待 %1</translation>
    </message>
    <message numerus="yes">
        <source>%n worker(s) alive</source>
        <translation>
            <numerusform>%n 个工作进程在线</numerusform>
        </translation>
    </message>
    <message>
        <source>no dead letters</source>
        <translation>无死信</translation>
    </message>
    <message numerus="yes">
        <source>%Ln task(s)</source>
        <translation>
            <numerusform>%Ln 个任务</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;span style=&quot;color:#a50e0e&quot;&gt;%n dead, holding %1&lt;/span&gt; — &lt;a href=&quot;view:recovery&quot;&gt;see Recovery&lt;/a&gt;</source>
        <translation>
            <numerusform>&lt;span style=&quot;color:#a50e0e&quot;&gt;%n 个失联，持有 %1&lt;/span&gt;——&lt;a href=&quot;view:recovery&quot;&gt;见“故障恢复”&lt;/a&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;a href=&quot;dead-letters&quot; style=&quot;color:#a50e0e&quot;&gt;%n dead letter(s)&lt;/a&gt;</source>
        <translation>
            <numerusform>&lt;a href=&quot;dead-letters&quot; style=&quot;color:#a50e0e&quot;&gt;%n 条死信&lt;/a&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>payouts %1/s, %n call(s) out, provider errors: %2</source>
        <translation>
            <numerusform>发放 %1 笔/秒，%n 个调用进行中，支付方错误：%2</numerusform>
        </translation>
    </message>
    <message>
        <source>“%1” has no dead letters.</source>
        <translation>“%1”没有死信。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::RecoveryView</name>
    <message>
        <source>Compensate worker…</source>
        <translation>补偿工作进程…</translation>
    </message>
    <message>
        <source>Compensate all…</source>
        <translation>全部补偿…</translation>
    </message>
    <message>
        <source>Reconcile…</source>
        <translation>对账…</translation>
    </message>
    <message>
        <source>Waiting for Redis…</source>
        <translation>正在等待 Redis…</translation>
    </message>
    <message>
        <source>Complete what SQL says is done and put the rest back on its queue, for the selected worker</source>
        <translation>针对选中的工作进程：SQL 中已完成的任务标记为完成，其余放回原队列</translation>
    </message>
    <message>
        <source>The same for every dead worker listed</source>
        <translation>对列出的所有失联工作进程执行同样的操作</translation>
    </message>
    <message>
        <source>Dead workers</source>
        <translation>失联工作进程</translation>
    </message>
    <message>
        <source>Ledger check of the campaigns involved</source>
        <translation>相关活动的账本核对</translation>
    </message>
    <message>
        <source>Compares the day&apos;s check-ins in Redis with the log in SQL and back-fills the rows that were lost.</source>
        <translation>比对当天 Redis 中的签到与 SQL 中的流水，补写丢失的记录。</translation>
    </message>
    <message>
        <source>Day:</source>
        <translation>日期：</translation>
    </message>
    <message>
        <source>Check-in reconciliation</source>
        <translation>签到对账</translation>
    </message>
    <message>
        <source>No dead worker: nothing waits for compensation.</source>
        <translation>没有失联的工作进程：没有等待补偿的任务。</translation>
    </message>
    <message numerus="yes">
        <source>%n dead worker(s)</source>
        <translation>
            <numerusform>%n 个失联工作进程</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n task(s) held in their backup lists</source>
        <translation>
            <numerusform>备份队列中有 %n 个任务</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n with violations</source>
        <translation>
            <numerusform>%n 个有异常</numerusform>
        </translation>
    </message>
    <message>
        <source>Compensate worker %1?</source>
        <translation>补偿工作进程 %1？</translation>
    </message>
    <message numerus="yes">
        <source>Compensate all %n dead worker(s)?</source>
        <translation>
            <numerusform>补偿全部 %n 个失联工作进程？</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Each of the %n task(s) they hold is completed when SQL records it as done, put back at the front of its queue otherwise (a payout keeps its idempotency key, so nothing is paid twice), or set aside when unreadable.</source>
        <translation>
            <numerusform>所持有的 %n 个任务中，SQL 已记录完成的标记为完成，其余放回原队列的队首（发放任务保留原来的幂等键，不会重复付款），无法解析的则移入死信。</numerusform>
        </translation>
    </message>
    <message>
        <source>Compensate</source>
        <translation>补偿</translation>
    </message>
    <message numerus="yes">
        <source>Compensating %n worker(s)…</source>
        <translation>
            <numerusform>正在补偿 %n 个工作进程…</numerusform>
        </translation>
    </message>
    <message>
        <source>Reconcile check-ins</source>
        <translation>签到对账</translation>
    </message>
    <message>
        <source>Compare the check-ins of %1 in Redis with the log in SQL and back-fill the rows that are missing?</source>
        <translation>比对 %1 在 Redis 中的签到与 SQL 中的流水，并补写缺失的记录？</translation>
    </message>
    <message>
        <source>Reconcile</source>
        <translation>对账</translation>
    </message>
    <message>
        <source>Reconciling %1…</source>
        <translation>正在对账 %1…</translation>
    </message>
    <message>
        <source>Nothing was missing.</source>
        <translation>没有缺失的记录。</translation>
    </message>
    <message>
        <source>%1 missing, %2 back-filled.</source>
        <translation>缺失 %1 条，已补写 %2 条。</translation>
    </message>
    <message>
        <source>Recovery</source>
        <translation>故障恢复</translation>
    </message>
    <message numerus="yes">
        <source>ledger: %1 of %n campaign(s) balanced</source>
        <translation>
            <numerusform>账本：%n 个活动中 %1 个已平账</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt;: %Ln check-in(s) in Redis, %2 in SQL before.</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt;：Redis 中有 %Ln 条签到，对账前 SQL 中有 %2 条。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lantern::ui::TableActions</name>
    <message>
        <source>&amp;Copy rows</source>
        <translation>复制行(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Export as CSV…</source>
        <translation>导出为 CSV(&amp;E)…</translation>
    </message>
    <message>
        <source>Export as CSV</source>
        <translation>导出为 CSV</translation>
    </message>
    <message>
        <source>The table could not be written to %1: %2</source>
        <translation>无法将表格写入 %1：%2</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message numerus="yes">
        <source>%n row(s) written to %1.</source>
        <translation>
            <numerusform>已将 %n 行写入 %1。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lantern::ui::TimetablePanel</name>
    <message>
        <source>Timetable: scheduled launches and closes</source>
        <translation>时间表：定时上线与结束</translation>
    </message>
    <message numerus="yes">
        <source>Timetable: %n pending transition(s), %1 worker(s) alive</source>
        <translation>
            <numerusform>时间表：%n 项待执行的变更，%1 个工作进程存活</numerusform>
        </translation>
    </message>
    <message>
        <source>A transition is due at %1 and no worker is alive to make it: start a worker (lanternd work).</source>
        <translation>有一项变更预定于 %1 执行，但没有存活的工作进程来执行它：请启动工作进程（lanternd work）。</translation>
    </message>
    <message>
        <source>The timetable could not be read: %1</source>
        <translation>无法读取时间表：%1</translation>
    </message>
</context>
<context>
    <name>lantern::ui::UserHistoryPanel</name>
    <message>
        <source>Streak chart</source>
        <translation>连续签到图</translation>
    </message>
    <message>
        <source>Check-ins</source>
        <translation>签到记录</translation>
    </message>
    <message>
        <source>Points ledger</source>
        <translation>积分流水</translation>
    </message>
    <message>
        <source>Checked in</source>
        <translation>已签到</translation>
    </message>
    <message>
        <source>Make-up</source>
        <translation>补签</translation>
    </message>
    <message>
        <source>Longest run</source>
        <translation>最长连续</translation>
    </message>
    <message>
        <source>days</source>
        <translation>天</translation>
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
        <extracomment>The unit after a number of days, as in &quot;12 days&quot;; the number itself is shown bigger.</extracomment>
        <translation>
            <numerusform>天</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>point(s)</source>
        <extracomment>The unit after a points balance, as in &quot;3,430 points&quot;.</extracomment>
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
        <source>MMMM yyyy</source>
        <extracomment>How the month above the calendar is written, as a QDate format (e.g. &quot;yyyy年M月&quot;).</extracomment>
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
        <source>This month&apos;s quota of %n make-up(s) is used up.</source>
        <translation>
            <numerusform>本月 %n 次补签额度已用完。</numerusform>
        </translation>
    </message>
    <message>
        <source>Users</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop waiting for this answer (Esc)</source>
        <translation>不再等待这次的结果（Esc）</translation>
    </message>
    <message>
        <source>Cancelled. The last answer shown stays on screen.</source>
        <translation>已取消。屏幕上保留上一次显示的结果。</translation>
    </message>
    <message>
        <source>No check-ins are recorded for user %1 in the last six months: a new user, or a uid nobody uses.</source>
        <translation>最近六个月没有用户 %1 的签到记录：可能是新用户，也可能是无人使用的 uid。</translation>
    </message>
    <message>
        <source>User %1 had signed %2 meanwhile; nothing changed.</source>
        <translation>用户 %1 在此期间已签到 %2；没有任何改动。</translation>
    </message>
    <message>
        <source>Make-up granted to user %1 for %2.</source>
        <translation>已为用户 %1 补签 %2。</translation>
    </message>
</context>
<context>
    <name>lantern::ui::WriteAction</name>
    <message>
        <source>Read-only connection: this would change data, and every change is refused. Connect with a profile that may write to use it.</source>
        <translation>只读连接：此操作会修改数据，而一切修改都会被拒绝。请使用允许写入的连接配置后再操作。</translation>
    </message>
</context>
</TS>
