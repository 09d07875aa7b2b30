"""Plain-int constants shared by the rules engine, the codec and the encoder.

Engine moves are ``(head, arg)`` pairs: ``head`` names a group of like choices (a node, a unit
type, a coin, ...), ``arg`` the choice inside it. The codec lays the heads out end to end, so a
move is one flat index. Plain ints rather than IntEnum: enum access is slow in hot paths.
"""
from __future__ import annotations


class Head:
    CTRL = 0
    COIN = 1  # add one coin to a bid: 1, 5, 10, 50, 100, 500 fl
    TAX = 2  # tax rate 10..50
    DICE = 3  # reroll subset of the barbarian dice, bit 0 = d4, bit 1 = d6, bit 2 = d8
    KIT = 4  # starting transports (S2)
    EMPIRE = 5  # empire pick (S1, option empire_selection="pick")
    NODE = 6  # a land region or sea zone
    PURCHASE = 7  # purchase category (phase 4)
    TECH = 8  # branch * 4 + (level - 1)
    BUILD = 9  # village, town, city, tower, fortress, castle, cathedral
    VEHICLE = 10  # kind * 3 + (level - 1); kinds caravan, merchant ship, war wagon, galley, siege engine
    UNIT = 11  # LI, HI, AR, CA, CP1, CP2, CP3
    OBJECT = 12  # an own transport or siege engine by ownership slot 0..9
    CARD = 13  # empire card id - 1
    COLOUR = 14  # TP / goal-token colour
    LOAD = 15  # load one unit of a type onto the moving carrier
    UNLOAD = 16  # drop one unit of a type from the moving carrier
    CAPTAIN = 17  # captain slot: act as / enable own / cancel enemy x AR, LI, HI, CA
    EVENT = 18  # event card: the symbol (1st, 2nd, 3rd) the start player does not apply
    PROTECT = 19  # military building protects against siege engines, archers or melee this round
    GOOD = 20  # a goods colour: sell one cube of it, place a market cube of it
    ROUTE = 21  # trade-route length: 4, 6 or 8 stages
    EMBARK = 22  # load an own empty war wagon or siege engine (by ownership slot) onto the moving galley
    DISEMBARK = 23  # unload one of them where the galley is docked
    PLAYER = 24  # another seat, relative to the deciding seat: +1 .. +5 (only existing seats are legal): a
    # diplomacy addressee, the next opponent of a multi-party war (spec 5.15)
    TREATY = 25  # diplomacy: the kind of offer (diplomacy.TREATY_NAMES)
    DURATION = 26  # a state treaty's term: 1 .. 5 rounds (this round counts), or until the game ends
    EP_BID = 27  # variant 8.1: an empire bid of 0 .. 10 EP
    SIDE = 28  # a battle side targeted by an empire card: attacker, defender (cards.py)


HEAD_NAMES = ("CTRL", "COIN", "TAX", "DICE", "KIT", "EMPIRE", "NODE", "PURCHASE", "TECH", "BUILD",
              "VEHICLE", "UNIT", "OBJECT", "CARD", "COLOUR", "LOAD", "UNLOAD", "CAPTAIN", "EVENT", "PROTECT",
              "GOOD", "ROUTE", "EMBARK", "DISEMBARK", "PLAYER", "TREATY", "DURATION", "EP_BID", "SIDE")
ROUTE_LENGTHS = (4, 6, 8)
PROTECT_NAMES = ("siege_engines", "archers", "melee")


class Ctrl:
    DONE = 0  # end the current step: seal a bid, end purchases, stop placing markers, keep the dice
    TAKE_LOAN = 1
    REPAY_LOAN = 2
    CLAIM_GOAL = 3  # then CARD (and COLOUR when the card shows several colours)
    SACRIFICE = 4  # remove one own LI before the attack roll for +4 attack
    SUPER_REDUCE = 5  # superiority point: lower own loss value by 1
    SUPER_DAMAGE = 6  # superiority point: 1 more damage to the loser
    KEEP = 7  # conquest: take the object over (or replace the control marker)
    PLUNDER = 8  # conquest: plunder it for 50 % (or remove the control marker)
    RETREAT = 9  # after a battle round: announce a retreat (attacker)
    CAPITULATE = 10  # after a battle round: offer to capitulate (attacker)
    DEMAND_CAPITULATION = 11  # after a battle round: propose that the defender capitulates
    ACCEPT = 12
    REJECT = 13
    TARGET_UNITS = 14  # a crewed siege engine fires at the enemy units
    TARGET_BUILDINGS = 15  # ... or at the enemy buildings in the region
    CAPTURE = 16  # announce an attack to capture for this battle round
    BUY = 17  # trade: buy (one more) cube of the good produced here
    START_ROUTE = 18  # after buying: declare a trade route from this region
    ABANDON_ROUTE = 19
    POINT_EP = 20  # a trade point of a completed route becomes 1 EP
    POINT_FL = 21  # ... or +50 fl per cube of the completing sale
    PLAY_CARD = 22  # activate an empire card's ability (then CARD and the card's targets)
    SALE_FEE = 23  # diplomacy offer: a trade treaty with 50 fl per sale action to the host
    PAY = 24  # diplomacy offer: the proposer pays a one-off sum (then COIN by COIN, DONE)
    DEMAND = 25  # diplomacy offer: the addressee pays a one-off sum
    SECRET = 26  # diplomacy offer: the treaty is secret (DONE = public)
    SPEND_BLOOD = 27  # variant 8.3: spend one blood marker for +1 attack this battle round
    REMOVE = 28  # spec 5.17: take an own unit, transport, siege engine or goods cube off the board


CTRL_NAMES = ("DONE", "TAKE_LOAN", "REPAY_LOAN", "CLAIM_GOAL", "SACRIFICE", "SUPER_REDUCE", "SUPER_DAMAGE",
              "KEEP", "PLUNDER", "RETREAT", "CAPITULATE", "DEMAND_CAPITULATION", "ACCEPT", "REJECT",
              "TARGET_UNITS", "TARGET_BUILDINGS", "CAPTURE", "BUY",
              "START_ROUTE", "ABANDON_ROUTE", "POINT_EP", "POINT_FL", "PLAY_CARD",
              "SALE_FEE", "PAY", "DEMAND", "SECRET", "SPEND_BLOOD", "REMOVE")
# captain slot choices (spec 5.11): mode * 4 + ability, modes act-as / enable-own / cancel-enemy
CAPTAIN_MODES = ("act_as", "enable_own", "cancel_enemy")
ABILITY_TYPES = (2, 0, 1, 3)  # AR, LI, HI, CA as unit types (check order of spec 5.11)

COINS = (1, 5, 10, 50, 100, 500)


def fewest_coins(amount: int) -> int:
    """How many ``COINS`` make ``amount`` at the fewest: largest first, since every coin divides the next."""
    count = 0
    for coin in reversed(COINS):
        k, amount = divmod(amount, coin)
        count += k
    return count


def coin_moves(amount: int, limit: int) -> list[tuple[int, int]]:
    """The ``COIN`` moves that add to a sum of ``amount`` fl entered so far, up to ``limit`` fl.

    A sum is entered in its fewest coins, in any order (ASSUMPTION, an encoding choice: docs/games/medioevo_universale.md,
    "Assumptions"): a coin is offered only when the coins entered stay the fewest that make the new sum (the fifth
    +1 is not, +5 is). Every sum up to the limit stays reachable, and a sum of S fl takes at most
    S // 500 + 14 coin decisions (33 for 9,999 fl), so no policy can stall a bid or an offer coin by coin."""
    entered = fewest_coins(amount)  # by this rule, the coins entered so far
    return [(Head.COIN, i) for i, c in enumerate(COINS)
            if amount + c <= limit and fewest_coins(amount + c) == entered + 1]


class Purchase:
    TECH = 0
    BUILD = 1  # new building or upgrade (also by two levels)
    REPAIR = 2  # one damage marker
    VEHICLE = 3  # new transport or siege engine
    UPGRADE_VEHICLE = 4
    UNIT = 5  # LI, HI, AR, CA or a new captain
    UPGRADE_CAPTAIN = 6
    CARD = 7  # buy an empire card
    REDEPLOY = 8  # put a capitulated unit back (free, counts against the unit limit)
    RANSOM = 9  # buy back an own captured unit at twice its price, paid to the captor


PURCHASE_NAMES = ("TECH", "BUILD", "REPAIR", "VEHICLE", "UPGRADE_VEHICLE", "UNIT", "UPGRADE_CAPTAIN", "CARD",
                  "REDEPLOY", "RANSOM")

# units (flat index per node: node * NUM_UNIT_TYPES + type)
LI, HI, AR, CA, CP1, CP2, CP3 = range(7)
NUM_UNIT_TYPES = 7
# barbarians per node: LI, AR, CP
B_LI, B_AR, B_CP = range(3)

# vehicles
CARAVAN, MERCHANT_SHIP, WAR_WAGON, GALLEY, SIEGE = range(5)
NUM_VEHICLE_KINDS = 5
# object record fields: [owner, kind, level, node, mp, stopped]
O_OWNER, O_KIND, O_LEVEL, O_NODE, O_MP, O_STOP = range(6)
NUM_SLOTS = 10

# buildings
VILLAGE, TOWN, CITY, TOWER, FORTRESS, CASTLE, CATHEDRAL = range(7)
CIVIL, MILITARY, RELIGIOUS = range(3)
BUILDING_CLASS = (CIVIL, CIVIL, CIVIL, MILITARY, MILITARY, MILITARY, RELIGIOUS)


class Stake:
    """What one decision of a conquest is about (conquest.py): the tag of a ``Conquest.items`` pair ``(tag, x)``."""
    BUILDING = 0  # x: the building class (CIVIL, MILITARY, RELIGIOUS) of a loser's building in the region
    OBJECT = 1  # x: the object id of a loser's transport or siege engine there
    CUBE = 2  # x: the goods colour of a market cube there
    MARKER = 3  # x: the region of a control marker the taken military building's former owner loses (G92)


# colours = technology branches
BLUE, YELLOW, ORANGE, RED, GREEN, VIOLET = range(6)
NUM_COLOURS = 6
TRANSPORT_B, ECONOMY_B, LEGISLATION_B, COMBAT_B, CONSTRUCTION_B, RELIGION_B = range(6)


class Stage:
    """Top-level phase of the round (spec 4.1), for the observation and the docs."""

    SETUP = 0
    TURN_ORDER = 1
    EVENTS = 2
    TAXES = 3
    PURCHASES = 4
    WAR = 5
    TRADE = 6
    END_OF_ROUND = 7
    OVER = 8


STAGE_NAMES = ("SETUP", "TURN_ORDER", "EVENTS", "TAXES", "PURCHASES", "WAR", "TRADE", "END_OF_ROUND", "OVER")


class EventStage:
    """Where phase 2 (the events, spec 5.4) stands: the drawn card's effects, the build-up, the revolts."""
    NONE = 0
    EFFECTS = 1
    BUILDUP = 2
    REVOLTS = 3


class DiplomacyWindow:
    """The diplomacy window open (spec 10.5): before the purchases, before the war, or in a battle (DW-BATTLE)."""
    NONE = 0
    PURCHASES = 1
    WAR = 2
    BATTLE = 3


class Phase:
    """The pending decision's kind. Values index the observation's one-hot."""

    EMPIRE_PICK = 0
    KIT = 1
    BID = 2  # sealed turn-order bid, built coin by coin
    TIE_BID = 3  # extra sealed amount for the tied highest bidders (G25)
    VILLAGE = 4
    PLACE_ARCHER = 5
    PLACE_TRANSPORT = 6
    KEEP_CARD = 7  # keep one of the drawn empire cards (setup S7 and card purchases)
    GOAL_TOKEN = 8  # starting goal token colour (S8)
    HORDE_REROLL = 9
    TAX = 10
    DEFICIT = 11  # cover upkeep and interest (loan, disband, sell)
    PURCHASE = 12  # purchase menu and its sub-decisions
    PLACE_MARKER = 13  # control markers from a new or upgraded military building
    WAR_TURN = 14  # phase 5: pass or choose a carrier (or an army on foot from a castle)
    MOVE = 15  # inside a completed movement: load, unload, step, switch carrier, end
    CAPTAIN_SLOT = 16  # battle step 2: one captain ability per slot
    SACRIFICE = 17  # battle step 5/6: sacrifice LI one at a time, then roll
    ATTACK_REROLL = 18  # battle step 5/6: reroll any subset of the three dice once
    SUPERIORITY = 19  # battle step 9: one choice per full 20 points of difference
    DAMAGE = 20  # assign one damage point to an own unit type
    AFTER_ROUND = 21  # attacker: continue, retreat, capitulate, or demand capitulation
    CAPITULATION_ANSWER = 22  # the other side accepts or rejects a capitulation
    RETREAT_TO = 23  # the region the retreating army moves to
    CONQUEST = 24  # take over or plunder each object of the loser (and replace markers)
    EVENT_CHOICE = 25  # start player: which of the event card's three symbols to drop
    EVENT_EFFECT = 26  # an affected player distributes the rolled effect (one point at a time)
    BUILDUP = 27  # start player: 3 barbarian build-up points
    REVOLT_PLACE = 28  # a player places a revolt among the eligible regions
    PROTECT_CHOICE = 29  # battle: the owner of a military building there picks what it protects against
    SIEGE_CREW = 30  # battle step 1: crew one siege engine unit by unit (DONE when crewed)
    SIEGE_TARGET = 31  # battle step 1: the crewed engine fires at units or at buildings
    SIEGE_BUILDING = 32  # battle step 1: which enemy building a building hit strikes (G40)
    CAPTURE_DECLARE = 33  # before a battle round: announce a capture attempt or not
    TRADE_TURN = 34  # phase 6: pass or activate a caravan / merchant ship
    TRADE = 35  # the active trade vehicle: move, buy, sell, end
    PLACE_CUBE = 36  # which colour goes to the market after a sale / on leaving
    ROUTE_LENGTH = 37  # a new trade route: how many stages
    ROUTE_STAGE = 38  # the next stage of the new route (the last is the destination)
    ROUTE_POINTS = 39  # each trade point of a completed route: EP or money
    GAME_OVER = 40
    CARD_WINDOW = 41  # a card window (spec 5.21): activate an empire card's ability, or DONE
    CARD_FOLLOW = 42  # the follow-up choices of an activated card (after its roll, or an amount)
    DIPLOMACY = 43  # diplomacy window: make an offer to a seat (PLAYER) or DONE
    OFFER = 44  # the offer being drafted: treaty kind, term, fee, payment, secrecy
    OFFER_ANSWER = 45  # the addressee accepts or rejects the offer
    EMPIRE_BID = 46  # variant 8.1: a sealed (empire, EP bid) pair: EMPIRE, then EP_BID
    EMPIRE_TIE_BID = 47  # variant 8.1: tied highest bidders bid again at once (EP_BID)
    BLOOD_SPEND = 48  # variant 8.3: spend blood markers one at a time for +1 attack, then DONE
    HIDDEN_PLACE = 49  # variant 8.5: place a unit / vehicle bought behind the screen
    TECH_USE = 50  # a technology activation: which technology, then its targets (DONE closes a window)
    TP_PAY = 51  # paying TP outside phase 4: rotate a card / flip a goal token, DONE pays the rest in fl
    NEXT_OPPONENT = 52  # spec 5.15: the attacker picks whom it fights next among several opponents (PLAYER)


PHASE_NAMES = tuple(sorted((k for k, v in vars(Phase).items() if isinstance(v, int)), key=lambda k: getattr(Phase, k)))
NUM_PHASES = len(PHASE_NAMES)
