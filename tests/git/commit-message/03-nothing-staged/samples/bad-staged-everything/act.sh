# the arm staged the work itself
git add -A
