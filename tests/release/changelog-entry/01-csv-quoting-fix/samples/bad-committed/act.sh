# the arm committed the entry although nobody asked it to
git -c commit.gpgsign=false commit -q -am 'Update changelog'
