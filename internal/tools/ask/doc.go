// Package ask declares ask_user, the one way a run asks the person a question: a single
// question with optional choices and free text, or a batch of up to four multiple-choice
// questions. The question reaches whichever face is attached through face.Asker; a pass,
// a timeout and the absence of a human each tell the model to go on with a stated
// assumption instead of asking again.
package ask
