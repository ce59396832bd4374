"""The cards at a live table: the host deals and shows each player his role on his own LED,
or learns a club-dealt deal from taps on the first night, or the human host types it."""

from __future__ import annotations

from hw.leds import Pattern
from voicehost.host.dealing import typed_deal
from voicehost.host.director import Director
from voicehost.host.refusals import CardsDoNotFit, TypeTheCards
from voicehost.rules import InputError, Role
from voicehost.rules.inputs import Deal

# The private role code shown on a player's own LED when the host deals (docs/live-host.md, «Starting a game»).
ROLE_BLINKS = {Role.CITIZEN: 1, Role.SHERIFF: 2, Role.COMMISSAR: 2, Role.DOCTOR: 3, Role.PUTANA: 4,
               Role.DON: 5, Role.MAFIA: 6, Role.YAKUZA: 7, Role.MANIAC: 8}


async def show_roles(director: Director) -> None:
    """When the host deals: each player in turn opens his eyes and reads his card on his own
    LED — the number of blinks is the role (docs/live-host.md), then closes them."""
    for seat in range(1, director.game.seats + 1):
        await director.say([("deal_open", {"seat": seat})])
        blinks = ROLE_BLINKS[director.game.roles[seat]]
        director.ports.led(seat, Pattern("role", on=0.4, off=0.4, n=blinks))
        await director.wait(blinks * 0.8 + 1.0)
        await director.say([("deal_close", {})])


# The order the host calls roles on the first night when the club dealt the cards itself:
# each called player taps his button while the others keep their eyes closed.
LEARN_ORDER = (Role.DON, Role.MAFIA, Role.YAKUZA, Role.SHERIFF, Role.COMMISSAR, Role.DOCTOR, Role.PUTANA,
               Role.MANIAC)
LEARN_WINDOW_S = 5.0


async def learn_roles(director: Director, cast: dict[Role, int]) -> Deal | None:
    """The club dealt the cards: on the first night the host calls each role in turn and the
    players holding it tap their buttons. Returns the deal, or None when the taps do not add
    up to the cast (then the host says so and the console must set the roles)."""
    roles = {seat: Role.CITIZEN for seat in range(1, director.game.seats + 1)}
    for role in LEARN_ORDER:
        wanted = cast.get(role, 0)
        if not wanted:
            continue
        opens = (await director.say([("learn_role", {"role": role})]))[0]
        await director.wait(LEARN_WINDOW_S)
        tapped = sorted({p.seat for p in director.ports.presses(opens, director.ports.clock())
                         if roles[p.seat] is Role.CITIZEN})
        await director.say([("learn_close", {})])
        if len(tapped) != wanted:
            await director.say([("learn_failed", {})])
            return None
        for seat in tapped:
            roles[seat] = role
    return Deal(tuple(roles[seat] for seat in sorted(roles)))


async def roles_from_console(director: Director) -> Deal:
    """A human host types the cards: ``roles 3=don,5=mafia,9=mafia,7=sheriff`` (unlisted seats
    are citizens). A line that does not fit the table's cast is refused with the reason."""
    while True:
        typed = await director.ports.console.get()
        words = typed.line.split(maxsplit=1)
        if len(words) != 2 or words[0] != "roles":
            director.console.refuse_line(typed, TypeTheCards())
            continue
        try:
            deal = typed_deal(words[1], director.game, "roles")
        except InputError as err:
            director.console.refuse_line(typed, CardsDoNotFit(str(err)))
            continue
        director.console.answer_line(typed, "done")
        return deal
