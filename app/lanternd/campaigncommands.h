#pragma once

namespace lantern::cli {

class CommandContext;

int runCampaignCreate(CommandContext &context);
int runCampaignLaunch(CommandContext &context);
int runCampaignPause(CommandContext &context);
int runCampaignResume(CommandContext &context);
int runCampaignClose(CommandContext &context);
int runCampaignRepair(CommandContext &context);
int runCampaignShow(CommandContext &context);
int runGrab(CommandContext &context);
int runVerify(CommandContext &context);

} // namespace lantern::cli
