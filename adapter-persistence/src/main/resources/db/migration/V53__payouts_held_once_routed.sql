-- A withdrawal of a shop checking its withdrawals' balance that every connector able to pay it
-- would pay in another currency is checked only where it is paid, when it is routed. It held the
-- currency it was asked in from its creation until then, unchecked, and took that balance below
-- zero, so that every withdrawal checked in that currency meanwhile was declined 1.10 (for days,
-- when it awaited approval). From this version on such a withdrawal holds nothing until routed,
-- and is held where it is paid by the step that routes it there. The withdrawals created before
-- hold what they held (false): they are given back and paid out as they were held.
ALTER TABLE payments ADD COLUMN holds_once_routed boolean NOT NULL DEFAULT false;
