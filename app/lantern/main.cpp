// lantern: the operations console (DESIGN §2). Everything lives in ui/ and models/; this only
// hands over. `lantern --help` lists the options; docs/console.md explains the sandbox.
#include "consolesession.h"

int main(int argc, char *argv[])
{
    return lantern::ui::runConsole(argc, argv);
}
