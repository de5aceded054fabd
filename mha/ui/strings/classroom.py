"""The classroom: a room a presenter leads and the pages that follow it (mha/ui/classroom.py)."""

from .entry import S

STRINGS = {
    "room_panel": S(
        en="Classroom",
        zh="课堂"),
    "room_open": S(
        en="Open a room for your class",
        zh="为你的班级开一个课堂"),
    "room_open_help": S(
        en="Everyone who joins sees the view you show, as you change it, in their own language. You get a code and a QR code to show the room.",
        zh="加入的人都会看到你正在展示的视图，你一改他们就跟着变，各自用自己的语言。你会得到一个课堂代码和一个二维码，可以投影给大家看。"),
    "room_join_label": S(
        en="Or join one with its code",
        zh="或者输入代码加入课堂"),
    "room_join": S(
        en="Join",
        zh="加入"),
    "room_leading": S(
        en="You lead room {code} · {heads} following",
        zh="你在主持课堂 {code} · {heads} 人在跟随"),
    "room_lead_line": S(
        en="You lead room {code}",
        zh="你在主持课堂 {code}"),
    "room_show_code": S(
        en="Show the join code",
        zh="显示加入代码"),
    "room_show_link": S(
        en="My presenter link",
        zh="我的主持链接"),
    "room_your_link": S(
        en="Your presenter link: it drives the room, so keep it to yourself, and off a projected screen. Open it in another window, or again after your browser restarts, to go on leading.",
        zh="你的主持链接：凭它控制课堂，请不要外传，也不要让它出现在投影屏幕上。在另一个浏览器窗口里打开它，或者浏览器重启后再打开，都可以继续主持。"),
    "room_code_title": S(
        en="Join this class",
        zh="加入这个课堂"),
    "room_code_body": S(
        en="Scan the QR code, or open the link below and type the room's code:",
        zh="扫描二维码，或者打开下面的链接并输入课堂代码："),
    "room_in": S(
        en="You are in room {code}.",
        zh="你在课堂 {code} 中。"),
    "room_leave": S(
        en="Leave the room",
        zh="离开课堂"),
    "room_following": S(
        en="Following room {code} · {heads} in the room",
        zh="正在跟随课堂 {code} · 共 {heads} 人"),
    "room_explore": S(
        en="Explore on my own",
        zh="自己探索"),
    "room_exploring": S(
        en="Exploring on your own · room {code}",
        zh="正在自己探索 · 课堂 {code}"),
    "room_went_own": S(
        en="You changed the view, so this page now explores on its own: the room's next changes will not undo yours. Follow again to return to the presenter's view.",
        zh="你改动了视图，所以这个页面现在自己探索：课堂接下来的更改不会覆盖你的改动。点“重新跟随”即可回到主持人的视图。"),
    "room_follow_again": S(
        en="Follow again",
        zh="重新跟随"),
    "room_gone": S(
        en="There is no room {code} on this server: it has ended, or the server has restarted since. This page shows its own view now.",
        zh="这台服务器上没有课堂 {code}：它已经结束，或者服务器重启过。这个页面现在显示它自己的视图。"),
    "room_unreachable": S(
        en="The classroom's server does not answer just now. This page keeps the view it shows, and the room goes on once the server is back.",
        zh="课堂服务器暂时没有响应。这个页面保留当前的视图，服务器恢复后课堂会继续。"),
    "room_code_bad": S(
        en="A room's code is {length} letters and digits, so this page joined no room and shows its own view.",
        zh="课堂代码由 {length} 个字母和数字组成，所以这个页面没有加入课堂，显示的是它自己的视图。"),
    "room_not_yours": S(
        en="The key in this link does not lead room {code}, so this page follows it instead.",
        zh="这个链接里的密钥不是课堂 {code} 的主持密钥，所以这个页面改为跟随这个课堂。"),
    "room_full": S(
        en="This room already holds {limit} pages, as many as a room takes. Ask the presenter to open a second room.",
        zh="这个课堂已经有 {limit} 个页面，达到了一个课堂的上限。请主持人再开一个课堂。"),
    "room_full_process": S(
        en="This server already holds {limit} rooms, as many as it keeps at once, and each has been in use in the last few minutes. A room whose presenter's page has closed gives way to a new one after a few minutes: try again in {minutes} min, or later.",
        zh="这台服务器上已经有 {limit} 个课堂，达到了同时保留的上限，而且每个课堂最近几分钟都有人在用。主持人页面关掉几分钟后，那个课堂就会让位给新课堂：请 {minutes} 分钟后或更晚再试。"),
    "room_slow": S(
        en="The room receives at most {n} changes a second; your latest view reaches it in a moment.",
        zh="课堂每秒最多接收 {n} 次更改；你最新的视图稍后就会送到。"),
    "room_ask": S(
        en="Ask the room this question",
        zh="把这道题发给课堂"),
    "room_ask_help": S(
        en="Every page following the room gets the quiz open on your page, the same hidden cell. Their answers come back here, counted without names; each reader sees whether they were right once you close the question.",
        zh="每个跟随课堂的页面都会收到你页面上正在做的这道题，隐藏的是同一格。大家的回答会汇总到这里，不记名字；你结束答题后，每个人才看到自己答得对不对。"),
    "room_ask_cell": S(
        en="Ask the room this cell",
        zh="让全班算这一格"),
    "room_ask_cell_help": S(
        en="Hides this cell on your screen and on every page following the room; each reader works it out from the row and the column shown. The answers are counted in your classroom panel.",
        zh="在你的屏幕和每个跟随课堂的页面上遮住这一格，每个人根据显示出来的行和列自己算出它。答案会在你的课堂面板里统计。"),
    "room_tally_none": S(
        en="Question {n}: no answer yet.",
        zh="第 {n} 题：还没有人回答。"),
    "room_tally": S(
        en="Question {n}: {answers} answers, {right} right ({share:.0%}).",
        zh="第 {n} 题：{answers} 份回答，{right} 份正确（{share:.0%}）。"),
    "room_bar": S(
        en="{value} {mark} {bar} {count}",
        zh="{value} {mark} {bar} {count} 份"),
    "room_close": S(
        en="Close the question",
        zh="结束答题"),
    "room_answer_in": S(
        en="Your answer is in. Once the presenter closes the question, this page says whether it was right.",
        zh="你的回答已经提交。主持人结束答题后，这里会告诉你答得对不对。"),
    "room_answer_late": S(
        en="The presenter has closed this question, so your answer was not counted.",
        zh="主持人已经结束了这道题，所以你的回答没有计入。"),
}
