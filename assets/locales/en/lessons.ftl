## The Lessons view around the pages' text

lessons-position = Lesson { $lesson } of { $lessons } · page { $page } of { $pages }
lessons-previous = Previous
lessons-next = Next
lessons-page-keys = PageUp / PageDown
lessons-set-up-again = Set this page up again
lessons-input-controls = Input and attention controls
lessons-model = Model: { $name } ({ $layers } layers × { $heads } heads, d = { $d })
lessons-input = Input: “{ $text }”
lessons-input-pair = Input: “{ $source }” → “{ $target }”
lessons-toy-vocabulary = A toy model trained by Glimpse: it knows only these { $count } tokens, and anything else you type is read as <unk>: { $tokens }
lessons-contents = Contents
